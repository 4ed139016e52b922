"""Collective communication times on the scale-up (NVLink-class) and scale-out (InfiniBand/RoCE) fabrics.

α-β model of ring collectives (Thakur, Rabenseifner & Gropp 2005, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1), §2 and Table 1; the same forms as NCCL's bus-bandwidth convention in
nccl-tests doc/PERFORMANCE.md): for a buffer of S bytes over n ranks at link bandwidth B and per-step latency α

    all-gather = reduce-scatter = (n-1)/n · S / B + (n-1)·α
    all-reduce                  = 2 · (n-1)/n · S / B + 2·(n-1)·α
    all-to-all                  = (n-1)/n · S / B + (n-1)·α     (pairwise exchange)
    point-to-point              = S / B + α

Placement follows Megatron-LM's rank order (tensor parallel innermost, then context, data, pipeline): a group
of n ranks spaced `stride` apart puts k = min(n, gpus_per_node / stride) of its ranks on each node. A group
inside one node runs at the scale-up bandwidth; a group spanning nodes is limited by the NICs its k local ranks
own (rail-optimised: one NIC per GPU), k · B_nic, or by the scale-up link, whichever is smaller.

The training step times its tensor-parallel and data-parallel (ZeRO/FSDP, HSDP) collectives with NCCL's own cost
model (nccl_collective_s below: NVIDIA/nccl src/graph/tuning.cc, NCCL v2.30.7-1), which charges a ring's
intra-node steps at NVLink latency and only its inter-node steps at network latency, per protocol, and takes the
fastest algorithm and protocol for each message size. The α-β forms above (all_gather_s, all_reduce_s,
all_to_all_s, p2p_s) remain for what NCCL's model does not cover: point-to-point sends (pipeline stages, ring
attention's KV exchange, the expert all-to-all, which NCCL runs as grouped send/recv), and the serving roofline's
tensor-parallel all-reduce (inference/roofline.py, calibrated separately on the serving cases).

Every function is elementwise: it accepts floats or numpy arrays of the same shape.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from planner.engine.perf import fastnp as np  # numpy, with one-number calls answered in Python

#: Achieved fraction of the per-direction NVLink/Infinity-Fabric bandwidth for large ring collectives. NCCL's
#: all-reduce bus bandwidth on DGX A100 is about 230 of 300 GB/s per direction (nccl-tests, NVIDIA DGX A100
#: user guide performance notes); calibrated once together with efficiency.py's constants.
SCALEUP_EFFICIENCY = 0.90
#: Per-step latency of an intra-node ring collective (NCCL small-message all-reduce on 8 GPUs takes about
#: 15-25 µs for 14 steps: nccl-tests on DGX A100/H100).
SCALEUP_STEP_LATENCY_S = 1.5e-6


#: Fixed cost of one NCCL collective call before any step (launch, synchronisation, protocol set-up): NCCL's own
#: performance model uses 8.4 µs for the ring algorithm with the Simple protocol (NVIDIA/nccl
#: src/graph/tuning.cc, `baseLat` Ring/Simple), the protocol of large transfers. It bounds how fast the many small
#: collectives of tensor parallelism on small models and of per-layer ZeRO-3 gathers can go.
NCCL_BASE_LATENCY_S = 8.4e-6


def ranks_per_node(n: Any, stride: Any, gpus_per_node: Any) -> Any:
    """How many of a group's n ranks (spaced `stride` apart) share one node: min(n, max(1, ⌊gpn/stride⌋))."""
    return np.minimum(n, np.maximum(1.0, np.floor(gpus_per_node / stride)))


def group_bandwidth_bytes_per_s(
    n: Any,
    stride: Any,
    gpus_per_node: Any,
    scaleup_bytes_per_s: Any,
    scaleout_bytes_per_s: Any,
    scaleout_efficiency: Any,
) -> Any:
    """Effective per-rank bandwidth (one direction) of a ring over a group (module docstring)."""
    in_node = n * stride <= gpus_per_node
    nvlink = scaleup_bytes_per_s * SCALEUP_EFFICIENCY
    k = ranks_per_node(n, stride, gpus_per_node)
    # A cluster without a scale-out network (one node, `scaleout_gbps_per_gpu` 0) has no group that spans nodes;
    # the floor of 1 byte/s only keeps the unused branch of np.where finite.
    cross = np.minimum(nvlink, np.maximum(k * scaleout_bytes_per_s * scaleout_efficiency, 1.0))
    return np.where(in_node, nvlink, cross)


def group_step_latency_s(n: Any, stride: Any, gpus_per_node: Any, scaleout_latency_s: Any) -> Any:
    """Per-step latency: NVLink's inside a node, the scale-out fabric's across nodes."""
    return np.where(n * stride <= gpus_per_node, SCALEUP_STEP_LATENCY_S, scaleout_latency_s)


def all_gather_s(size_bytes: Any, n: Any, bandwidth: Any, step_latency_s: Any) -> Any:
    """Ring all-gather (or reduce-scatter) of an S-byte buffer: (n-1)/n·S/B + (n-1)·α + the collective's base
    latency; zero when n = 1."""
    base = np.where(n > 1.0, NCCL_BASE_LATENCY_S, 0.0)
    return (n - 1.0) / n * size_bytes / bandwidth + (n - 1.0) * step_latency_s + base


reduce_scatter_s = all_gather_s


def all_reduce_s(size_bytes: Any, n: Any, bandwidth: Any, step_latency_s: Any) -> Any:
    """Ring all-reduce: a reduce-scatter followed by an all-gather, 2·(n-1)/n·S/B + 2·(n-1)·α."""
    return 2.0 * all_gather_s(size_bytes, n, bandwidth, step_latency_s)


def all_to_all_s(size_bytes: Any, n: Any, bandwidth: Any, step_latency_s: Any) -> Any:
    """Pairwise all-to-all of an S-byte buffer per rank: (n-1)/n·S/B + (n-1)·α."""
    return all_gather_s(size_bytes, n, bandwidth, step_latency_s)


def p2p_s(size_bytes: Any, bandwidth: Any, latency_s: Any) -> Any:
    """One point-to-point send: S/B + α."""
    return size_bytes / bandwidth + latency_s


# --- NCCL's own cost model (training collectives) ------------------------------------------------------------------
#
# NVIDIA/nccl src/graph/tuning.cc, NCCL v2.30.7-1 (file last changed 2026-06-01), ncclTopoTuneModel and
# ncclTopoGetAlgoTime. For each collective NCCL predicts, per algorithm a and protocol p,
#
#     time = latency[a][p] + bytes / bandwidth[a][p]
#
# and runs the fastest (enqueue.cc topoGetAlgoInfo). `bytes` is the whole buffer (for all-gather and reduce-scatter
# nRanks · count: include/enqueue.h ncclFuncMaxSendRecvCount). The ring's latency is its base latency plus one
# hardware latency per step, and the steps are not all alike: of the nsteps (n-1 for all-gather / reduce-scatter,
# 2(n-1) for all-reduce) only nInterSteps = nNodes-1 (2(nNodes-1)) cross the network at the NET latency; the others
# run at NVLink's (at least the network post overhead when the ring leaves the node). The tree all-reduce pays
# 2·((ppn-1)·intra + ⌊log2 nNodes⌋·inter); PAT (all-gather / reduce-scatter with one GPU per node only)
# ⌊log2 nNodes⌋·inter/3.5 + 2.8 µs·nRanks. The constants below are tuning.cc's tables, in µs and GB/s; none is
# fitted here. What the planner does not model: NVLS / NVLS-tree (NVSwitch multicast, needs NCCL_NVLS_ENABLE and
# buffer registration), CollNet (SHARP), the per-channel bandwidth caps (perChMax*Bws · nChannels: above what one
# NIC or the scale-up link gives at 16 or more channels), and the tuner plugins a site may load.

#: Protocols, in tuning.cc's order (NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE).
LL, LL128, SIMPLE = 0, 1, 2
PROTOCOLS = (LL, LL128, SIMPLE)
#: baseLatencies (µs) of tuning.cc ncclTunerConstantsDefaults, (LL, LL128, Simple).
BASE_LATENCY_US = {"tree": (6.8, 14.0, 8.4), "ring": (6.6, 14.0, 8.4), "pat": (8.0, 8.0, 8.0)}
#: hwLatencies (µs) NVLINK rows, (LL, LL128, Simple).
NVLINK_LATENCY_US = {"tree": (0.6, 1.25, 4.0), "ring": (0.6, 1.9, 3.4), "pat": (0.0, 0.0, 4.0)}
#: hwLatencies (µs) NET rows, (LL, LL128, Simple). With one rank per node the ring uses the tree's row
#: ("With ppn=1 latencies are fully exposed, use the Tree network latency").
NET_LATENCY_US = {"tree": (5.0, 8.5, 14.0), "ring": (2.7, 4.0, 14.0), "pat": (0.0, 0.0, 14.0)}
#: The network plugin's own latency (graph->latencyInter, added once, twice for Simple): NCCL's InfiniBand and
#: socket transports report 0 ("Not set": src/transport/net_ib/init.cc, net_socket.cc), so the NET rows are all.
NET_PLUGIN_LATENCY_US = 0.0
#: getNetOverhead: network post overhead per ring step once a ring leaves the node, µs (Intel x86 1.0, AMD 2.0;
#: ×3 for Simple), a floor under the intra-node step latency.
NET_OVERHEAD_US = {"intel": 1.0, "amd": 2.0}
#: llMaxBws (GB/s), the LL protocol's bandwidth cap: one node by GPU generation (Volta, Ampere, Hopper,
#: Blackwell), several nodes by host CPU (Intel, AMD) for 2 nodes and for more.
LL_MAX_BW_ONE_NODE_GBS = (39.0, 87.7, 141.0, 282.0)
LL_MAX_BW_NODES_GBS = {"intel": (39.0, 20.4), "amd": (22.5, 19.0)}
#: Bus-bandwidth refinements of ncclTopoTuneModel: ring LL ×0.5 (capped by llMaxBw), ring LL128 ×0.92
#: (120/128 payload), tree all-reduce ×0.92, tree LL ×1/3.8 (capped), tree LL128 ×7/9 on one node and ×120/128
#: across nodes, PAT ×0.75.
RING_LL_FACTOR, RING_LL128_FACTOR = 0.5, 0.92
TREE_FACTOR, TREE_LL_FACTOR = 0.92, 1.0 / 3.8
TREE_LL128_ONE_NODE, TREE_LL128_NODES = 7.0 / 9.0, 120.0 / 128.0
PAT_FACTOR = 0.75
#: PAT's linear latency term, µs per rank, and the divisor of its per-level network latency.
PAT_US_PER_RANK, PAT_LOG_DIVISOR = 2.8, 3.5
#: ncclTopoGetAlgoTime: multi-node ring/Simple all-reduce latency ×1.4 (Ampere and later; 1.9 before) once a
#: channel's share of a rank exceeds 64 bytes ("plateau effect of ring"); counted with MAXCHANNELS (device.h: 64)
#: channels, the fewest bytes at which it surely applies.
RING_PLATEAU_FACTOR = 1.4
RING_PLATEAU_BYTES = 64.0 * 64.0
#: treeCorrectionFactor (tuning.cc), tree all-reduce bandwidth by ⌊log2(bytes/64)⌋, 0..22, per protocol.
TREE_CORRECTION = (
    (
        1.0,
        1.0,
        1.0,
        1.0,
        0.9,
        0.8,
        0.7,
        0.7,
        0.7,
        0.7,
        0.6,
        0.5,
        0.4,
        0.4,
        0.5,
        0.6,
        0.7,
        0.8,
        0.9,
        1.0,
        1.0,
        1.0,
        1.0,
    ),
    (
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
        0.9,
        0.8,
        0.8,
        0.8,
        0.7,
        0.6,
        0.6,
        0.6,
        0.6,
        0.6,
        0.6,
        0.8,
        0.9,
        0.9,
        0.9,
        0.9,
        1.0,
        1.0,
    ),
    (
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0.8,
        0.7,
        0.6,
        0.6,
        0.5,
        0.5,
        0.5,
        0.5,
        0.6,
        0.7,
        0.8,
        0.7,
        0.7,
        0.8,
        0.9,
        0.9,
    ),
)
#: GPU generations as tuning.cc indexes them (compCapIndex), with the host CPU of the generation's reference
#: server (DGX A100: AMD EPYC 7742; DGX H100 / B200: Intel Xeon 8480C / 8570), which picks the multi-node LL cap
#: and the network post overhead. A GPU not recognised is taken as Hopper on Intel.
VOLTA, AMPERE, HOPPER, BLACKWELL = 0, 1, 2, 3
GENERATION_NEEDLES: tuple[tuple[str, int], ...] = (
    ("v100", VOLTA),
    ("a100", AMPERE),
    ("a800", AMPERE),
    ("a30", AMPERE),
    ("a40", AMPERE),
    ("a10", AMPERE),
    ("h100", HOPPER),
    ("h200", HOPPER),
    ("h800", HOPPER),
    ("gh200", HOPPER),
    ("b100", BLACKWELL),
    ("b200", BLACKWELL),
    ("b300", BLACKWELL),
)
HOST_CPU = {VOLTA: "intel", AMPERE: "amd", HOPPER: "intel", BLACKWELL: "intel"}
_US = 1e-6
_GBS = 1e9


def nccl_generation(gpu_key: str) -> int:
    """tuning.cc's compCapIndex for a GPU (catalog id and name), HOPPER when not recognised."""
    key = gpu_key.lower()
    for needle, generation in GENERATION_NEEDLES:
        if needle in key:
            return generation
    return HOPPER


def _log2i(x: Any) -> Any:
    """utils.h log2i: ⌊log2 x⌋ for x ≥ 1."""
    return np.floor(np.log2(np.maximum(x, 1.0)) + 1e-9)


def _ll_max_bw(nodes: Any, generation: int) -> Any:
    """llMaxBws: one node by GPU generation, several by host CPU (2 nodes, more)."""
    two, more = LL_MAX_BW_NODES_GBS[HOST_CPU[generation]]
    return _GBS * np.where(
        nodes <= 1.0, LL_MAX_BW_ONE_NODE_GBS[generation], np.where(nodes <= 2.0, two, more)
    )


def _ring_s(kind: str, size_bytes: Any, n: Any, nodes: Any, bus_bw: Any, generation: int) -> Any:
    """Fastest ring protocol: base + (nsteps - nInterSteps)·intra + nInterSteps·inter + bytes / algorithm bw."""
    factor = 2.0 if kind == "all_reduce" else 1.0
    steps = factor * (n - 1.0)
    inter_steps = factor * (nodes - 1.0)
    intra_steps = steps - inter_steps
    wire = steps / n * size_bytes  # bytes / algorithm bw = nsteps / n · bytes / bus bw
    multi_node = nodes > 1.0
    one_per_node = n <= nodes
    overhead_us = NET_OVERHEAD_US[HOST_CPU[generation]]
    best = None
    for p in PROTOCOLS:
        nvlink_us = NVLINK_LATENCY_US["ring"][p]
        floor_us = overhead_us * (3.0 if p == SIMPLE else 1.0)
        intra = np.where(multi_node, floor_us, nvlink_us) if floor_us > nvlink_us else nvlink_us
        plugin = NET_PLUGIN_LATENCY_US * (2.0 if p == SIMPLE else 1.0)
        tree_us, ring_us = NET_LATENCY_US["tree"][p] + plugin, NET_LATENCY_US["ring"][p] + plugin
        inter = np.where(one_per_node, tree_us, ring_us) if tree_us != ring_us else ring_us
        latency_us = BASE_LATENCY_US["ring"][p] + intra_steps * intra + inter_steps * inter
        if p == SIMPLE and kind == "all_reduce":
            plateau = multi_node & (size_bytes / n >= RING_PLATEAU_BYTES)
            latency_us = latency_us * np.where(plateau, RING_PLATEAU_FACTOR, 1.0)
        if p == LL:
            bw = np.minimum(_ll_max_bw(nodes, generation), bus_bw * RING_LL_FACTOR)
        elif p == LL128:
            bw = bus_bw * RING_LL128_FACTOR
        else:
            bw = bus_bw
        t = latency_us * _US + wire / bw
        best = t if best is None else np.minimum(best, t)
    return best


def _tree_correction(size_bytes: Any, p: int) -> Any:
    """treeCorrectionFactor[p][⌊log2(bytes/64)⌋], 1 outside the table."""
    table = TREE_CORRECTION[p]
    index = np.floor(np.log2(np.maximum(size_bytes, 1.0) / 64.0) + 1e-9)
    if isinstance(index, float):
        i = int(index)
        return table[i] if 0 <= i < len(table) else 1.0
    clipped = np.clip(index, 0, len(table) - 1).astype(int)
    inside = (index >= 0) & (index < len(table))
    return np.where(inside, np.asarray(table)[clipped], 1.0)


def _tree_all_reduce_s(size_bytes: Any, n: Any, nodes: Any, bus_bw: Any, generation: int) -> Any:
    """Fastest tree all-reduce protocol: base + 2·((ppn-1)·intra + ⌊log2 nNodes⌋·inter) + 2·bytes / bus bw."""
    ppn = n / nodes
    best = None
    for p in PROTOCOLS:
        inter = NET_LATENCY_US["tree"][p] + NET_PLUGIN_LATENCY_US * (2.0 if p == SIMPLE else 1.0)
        latency_us = BASE_LATENCY_US["tree"][p] + 2.0 * (
            (ppn - 1.0) * NVLINK_LATENCY_US["tree"][p] + _log2i(nodes) * inter
        )
        bw = bus_bw * TREE_FACTOR
        if p == LL:
            bw = np.minimum(bw * TREE_LL_FACTOR, _ll_max_bw(nodes, generation))
        elif p == LL128:
            bw = bw * np.where(nodes <= 1.0, TREE_LL128_ONE_NODE, TREE_LL128_NODES)
        algorithm_bw = 0.5 * bw * _tree_correction(size_bytes, p)
        t = latency_us * _US + size_bytes / algorithm_bw
        best = t if best is None else np.minimum(best, t)
    return best


def _pat_s(size_bytes: Any, n: Any, nodes: Any, bus_bw: Any) -> Any:
    """PAT all-gather / reduce-scatter (Simple only; one rank per node): base + ⌊log2 nNodes⌋·inter/3.5 +
    2.8 µs·nRanks + bytes / (0.75 · bus bw)."""
    inter = NET_LATENCY_US["tree"][SIMPLE] + 2.0 * NET_PLUGIN_LATENCY_US
    latency_us = (
        BASE_LATENCY_US["pat"][SIMPLE] + _log2i(nodes) * inter / PAT_LOG_DIVISOR + PAT_US_PER_RANK * n
    )
    return latency_us * _US + size_bytes / (PAT_FACTOR * bus_bw)


def nccl_collective_s(
    kind: str, size_bytes: Any, n: Any, per_node: Any, bus_bw: Any, generation: int = HOPPER
) -> Any:
    """Time of one NCCL collective as NCCL's own model predicts it (the block comment above): the fastest of
    ring (LL, LL128, Simple), tree (all-reduce) and PAT (all-gather / reduce-scatter with one rank per node).

    kind: "all_gather", "reduce_scatter" or "all_reduce"; size_bytes: the whole buffer; n ranks, `per_node` of
    them on each node (ranks_per_node); bus_bw: the group's achieved bus bandwidth per rank, bytes/s
    (group_bandwidth_bytes_per_s). Zero when n = 1."""
    if (
        type(size_bytes) in _FLOATS
        and type(n) in _FLOATS
        and type(per_node) in _FLOATS
        and type(bus_bw) in _FLOATS
    ):
        return _scalar_collective_s(
            kind, float(size_bytes), float(n), float(per_node), float(bus_bw), generation
        )
    nodes = np.maximum(n / per_node, 1.0)
    best = _ring_s(kind, size_bytes, n, nodes, bus_bw, generation)
    if kind == "all_reduce":
        best = np.minimum(best, _tree_all_reduce_s(size_bytes, n, nodes, bus_bw, generation))
    else:
        pat_ok = (per_node <= 1.0) & (nodes > 1.0)
        best = np.minimum(best, np.where(pat_ok, _pat_s(size_bytes, n, nodes, bus_bw), np.inf))
    return np.where(n > 1.0, best, 0.0)


_FLOATS = frozenset({float, numpy.float64})


def _scalar_collective_s(
    kind: str, size: float, n: float, per_node: float, bus_bw: float, generation: int
) -> float:
    """nccl_collective_s for one collective in plain Python (estimate's path; the same operations as the array
    path, so `search` and `estimate` agree to the last bit up to ⌊log2⌋ at exact powers of two)."""
    if not n > 1.0:
        return 0.0
    nodes = max(n / per_node, 1.0)
    cpu = HOST_CPU[generation]
    ll_cap = _GBS * (
        LL_MAX_BW_ONE_NODE_GBS[generation]
        if nodes <= 1.0
        else (LL_MAX_BW_NODES_GBS[cpu][0] if nodes <= 2.0 else LL_MAX_BW_NODES_GBS[cpu][1])
    )
    factor = 2.0 if kind == "all_reduce" else 1.0
    steps, inter_steps = factor * (n - 1.0), factor * (nodes - 1.0)
    overhead = NET_OVERHEAD_US[cpu] if nodes > 1.0 else 0.0
    one_per_node = n <= nodes
    best = math.inf
    for p in PROTOCOLS:
        intra = max(NVLINK_LATENCY_US["ring"][p], overhead * (3.0 if p == SIMPLE else 1.0))
        plugin = NET_PLUGIN_LATENCY_US * (2.0 if p == SIMPLE else 1.0)
        inter = (NET_LATENCY_US["tree"][p] if one_per_node else NET_LATENCY_US["ring"][p]) + plugin
        latency_us = BASE_LATENCY_US["ring"][p] + (steps - inter_steps) * intra + inter_steps * inter
        if p == SIMPLE and kind == "all_reduce" and nodes > 1.0 and size / n >= RING_PLATEAU_BYTES:
            latency_us = latency_us * RING_PLATEAU_FACTOR
        bw = (
            min(ll_cap, bus_bw * RING_LL_FACTOR)
            if p == LL
            else (bus_bw * RING_LL128_FACTOR if p == LL128 else bus_bw)
        )
        best = min(best, latency_us * _US + steps / n * size / bw)
    log_nodes = math.floor(math.log2(nodes) + 1e-9)
    if kind == "all_reduce":
        ppn = n / nodes
        index = math.floor(math.log2(max(size, 1.0) / 64.0) + 1e-9)
        for p in PROTOCOLS:
            inter = NET_LATENCY_US["tree"][p] + NET_PLUGIN_LATENCY_US * (2.0 if p == SIMPLE else 1.0)
            latency_us = BASE_LATENCY_US["tree"][p] + 2.0 * (
                (ppn - 1.0) * NVLINK_LATENCY_US["tree"][p] + log_nodes * inter
            )
            bw = bus_bw * TREE_FACTOR
            if p == LL:
                bw = min(bw * TREE_LL_FACTOR, ll_cap)
            elif p == LL128:
                bw = bw * (TREE_LL128_ONE_NODE if nodes <= 1.0 else TREE_LL128_NODES)
            correction = TREE_CORRECTION[p][index] if 0 <= index < len(TREE_CORRECTION[p]) else 1.0
            best = min(best, latency_us * _US + size / (0.5 * bw * correction))
    elif per_node <= 1.0 and nodes > 1.0:
        inter = NET_LATENCY_US["tree"][SIMPLE] + 2.0 * NET_PLUGIN_LATENCY_US
        latency_us = (
            BASE_LATENCY_US["pat"][SIMPLE] + log_nodes * inter / PAT_LOG_DIVISOR + PAT_US_PER_RANK * n
        )
        best = min(best, latency_us * _US + size / (PAT_FACTOR * bus_bw))
    return best


def group_collective_s(
    kind: str,
    size_bytes: Any,
    n: Any,
    stride: Any,
    gpus_per_node: Any,
    scaleup_bytes_per_s: Any,
    scaleout_bytes_per_s: Any,
    scaleout_efficiency: Any,
    generation: int = HOPPER,
) -> Any:
    """nccl_collective_s over a group of n ranks spaced `stride` apart (Megatron rank order, module docstring)."""
    bw = group_bandwidth_bytes_per_s(
        n, stride, gpus_per_node, scaleup_bytes_per_s, scaleout_bytes_per_s, scaleout_efficiency
    )
    per_node = ranks_per_node(n, stride, gpus_per_node)
    return nccl_collective_s(kind, size_bytes, n, per_node, bw, generation)


def assumptions() -> dict[str, dict[str, Any]]:
    return {
        "comm.scaleup_efficiency": {
            "value": SCALEUP_EFFICIENCY,
            "unit": "fraction of per-direction scale-up bandwidth",
            "source": "nccl-tests bus bandwidth on DGX A100; calibrated once on the shipped cases",
        },
        "comm.nccl_base_latency_us": {
            "value": NCCL_BASE_LATENCY_S * 1e6,
            "unit": "µs per collective call",
            "source": "NVIDIA/nccl src/graph/tuning.cc baseLat (Ring, Simple protocol)",
        },
        "comm.scaleup_step_latency_us": {
            "value": SCALEUP_STEP_LATENCY_S * 1e6,
            "unit": "µs per ring step",
            "source": "nccl-tests small-message latency on 8-GPU NVLink nodes (point-to-point and serving only)",
        },
        "comm.nccl_model": {
            "value": "NCCL 2.30.7 tuning.cc",
            "unit": "cost model of tensor- and data-parallel collectives",
            "source": "NVIDIA/nccl src/graph/tuning.cc (v2.30.7-1) ncclTopoTuneModel / ncclTopoGetAlgoTime: ring "
            "latency = base + intra-node steps × NVLink latency + inter-node steps × network latency (Simple "
            f"{BASE_LATENCY_US['ring'][SIMPLE]} + {NVLINK_LATENCY_US['ring'][SIMPLE]} / "
            f"{NET_LATENCY_US['ring'][SIMPLE]} µs; LL {BASE_LATENCY_US['ring'][LL]} + "
            f"{NVLINK_LATENCY_US['ring'][LL]} / {NET_LATENCY_US['ring'][LL]} µs), tree all-reduce, PAT at one GPU "
            "per node; the fastest per message size",
        },
    }
