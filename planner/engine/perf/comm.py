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

Every function is elementwise: it accepts floats or numpy arrays of the same shape.
"""

from __future__ import annotations

from typing import Any

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
            "source": "nccl-tests small-message latency on 8-GPU NVLink nodes",
        },
    }
