"""Collective times follow NCCL's own cost model (NVIDIA/nccl src/graph/tuning.cc, v2.30.7-1; perf/comm.py): the
formulas are checked against hand evaluations of tuning.cc's expressions with its tables, and against the
behaviour they imply (intra-node ring steps at NVLink latency, only the inter-node steps at network latency; the
fastest protocol per message size; tree for all-reduce and PAT for one rank per node at large rank counts)."""

from __future__ import annotations

import numpy
import pytest

from planner.engine.perf import comm

NVLINK_BUS_BW = 360e9  # bytes/s per rank, one direction
NIC_BUS_BW = 40e9


def _ring_simple_latency_us(steps: float, inter_steps: float, intra_us: float, inter_us: float) -> float:
    return (
        comm.BASE_LATENCY_US["ring"][comm.SIMPLE] + (steps - inter_steps) * intra_us + inter_steps * inter_us
    )


def test_a_large_intra_node_all_gather_is_ring_simple_by_hand():
    size, n = 1e9, 8.0
    expected = _ring_simple_latency_us(7, 0, 3.4, 0.0) * 1e-6 + 7 / 8 * size / NVLINK_BUS_BW
    assert comm.nccl_collective_s("all_gather", size, n, 8.0, NVLINK_BUS_BW) == pytest.approx(
        expected, rel=1e-12
    )


def test_only_the_inter_node_steps_pay_network_latency():
    """2,048 ranks on 256 nodes, a 1 GB gather: the ring's Simple latency is 1,792 NVLink steps (at least the
    network post overhead, 3 µs on Intel hosts) and 255 network steps at 14 µs, not 2,047 network steps."""
    size, n, per_node = 1e9, 2048.0, 8.0
    bw = per_node * NIC_BUS_BW
    ring = _ring_simple_latency_us(2047, 255, max(3.4, 3.0), 14.0) * 1e-6 + 2047 / 2048 * size / bw
    got = comm.nccl_collective_s("all_gather", size, n, per_node, bw)
    assert got <= ring * (1 + 1e-12)  # NCCL takes the fastest protocol; Simple is one candidate
    all_network_steps = 2047 * 14e-6
    assert got < 2047 / 2048 * size / bw + all_network_steps / 2


def test_small_messages_take_a_low_latency_protocol():
    """At 64 KB on one node LL (0.6 µs per step, base 6.6 µs) beats Simple (3.4 µs, 8.4 µs)."""
    size, n = 65536.0, 8.0
    simple = _ring_simple_latency_us(7, 0, 3.4, 0.0) * 1e-6 + 7 / 8 * size / NVLINK_BUS_BW
    ll = (6.6 + 7 * 0.6) * 1e-6 + 7 / 8 * size / min(141e9, 0.5 * NVLINK_BUS_BW)
    got = comm.nccl_collective_s("all_gather", size, n, 8.0, NVLINK_BUS_BW)
    assert got == pytest.approx(min(ll, simple), rel=1e-12) and got < simple


def test_all_reduce_over_many_nodes_takes_the_tree_at_small_sizes():
    """A 1 MB all-reduce over 256 nodes × 8: the ring's latency grows with 2·(n-1) steps, the tree's with
    2·⌊log2 256⌋ network hops, so the tree wins and the time is far below the ring's latency alone."""
    n, per_node, size = 2048.0, 8.0, 1e6
    ring_ll_latency = (6.6 + 2 * 1792 * 1.0 + 2 * 255 * 2.7) * 1e-6
    got = comm.nccl_collective_s("all_reduce", size, n, per_node, per_node * NIC_BUS_BW)
    assert got < ring_ll_latency / 4


def test_pat_only_with_one_rank_per_node():
    size, n = 1e6, 256.0
    one_per_node = comm.nccl_collective_s("all_gather", size, n, 1.0, NIC_BUS_BW)
    pat = (8.0 + 8 * 14.0 / 3.5 + 2.8 * 256) * 1e-6 + size / (0.75 * NIC_BUS_BW)
    assert one_per_node == pytest.approx(pat, rel=1e-12)  # PAT beats every ring protocol at 256 nodes
    # with 8 ranks per node PAT is not offered (tuning.cc ncclPatEnable: nNodes == nRanks only)
    eight = comm.nccl_collective_s("all_gather", size, n, 8.0, 8 * NIC_BUS_BW)
    assert eight == comm._ring_s("all_gather", size, n, 32.0, 8 * NIC_BUS_BW, comm.HOPPER)


def test_one_rank_costs_nothing_and_arrays_match_scalars():
    assert comm.nccl_collective_s("all_reduce", 1e9, 1.0, 1.0, NVLINK_BUS_BW) == 0.0
    sizes = numpy.array([1e3, 1e5, 1e7, 1e9])
    ranks = numpy.array([8.0, 64.0, 512.0, 2048.0])
    per_node = numpy.array([8.0, 8.0, 1.0, 8.0])
    for kind in ("all_gather", "reduce_scatter", "all_reduce"):
        arrays = comm.nccl_collective_s(kind, sizes, ranks, per_node, NIC_BUS_BW * per_node)
        scalars = [
            comm.nccl_collective_s(kind, float(s), float(r), float(k), float(NIC_BUS_BW * k))
            for s, r, k in zip(sizes, ranks, per_node, strict=True)
        ]
        assert list(arrays) == pytest.approx(scalars, rel=1e-12)


def test_time_grows_with_size_and_ranks():
    for kind in ("all_gather", "all_reduce"):
        sizes = [comm.nccl_collective_s(kind, s, 64.0, 8.0, 8 * NIC_BUS_BW) for s in (1e4, 1e6, 1e8, 1e10)]
        assert sizes == sorted(sizes)
        ranks = [
            comm.nccl_collective_s(kind, 1e6, r, 8.0, 8 * NIC_BUS_BW) for r in (16.0, 64.0, 256.0, 2048.0)
        ]
        assert ranks == sorted(ranks)


def test_generations_are_recognised():
    assert comm.nccl_generation("nvidia_a100_sxm4_80gb A100 SXM4 80GB") == comm.AMPERE
    assert comm.nccl_generation("nvidia_h100_sxm5_80gb H100") == comm.HOPPER
    assert comm.nccl_generation("nvidia_b200 B200") == comm.BLACKWELL
    assert comm.nccl_generation("something new") == comm.HOPPER
