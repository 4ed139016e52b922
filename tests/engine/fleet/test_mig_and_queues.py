"""MIG geometry and packing (NVIDIA MIG User Guide tables) and the FIFO-with-backfill queue simulation."""

from __future__ import annotations

import numpy as np
import pytest

from planner.engine.fleet import queues
from planner.engine.fleet.mig import mig_profiles, pack_mig, pack_service, per_gpu, smallest_profile

# User guide, A100-SXM4-80GB: "Number of Instances Available" per profile.
A100_80_INSTANCES = {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}


def test_a100_80gb_profiles_and_instances_per_gpu_follow_the_user_guide() -> None:
    profiles = {p.name: p for p in mig_profiles("nvidia_a100_sxm4_80gb")}
    assert {name: per_gpu(p) for name, p in profiles.items()} == A100_80_INSTANCES


@pytest.mark.parametrize(
    ("gpu", "smallest"),
    [
        ("nvidia_a100_sxm4_40gb", "1g.5gb"),
        ("nvidia_h100_sxm5_80gb", "1g.10gb"),
        ("nvidia_h200_sxm_141gb", "1g.18gb"),
        ("nvidia_b200_hgx", "1g.23gb"),
    ],
)
def test_each_mig_gpu_has_its_profile_names(gpu: str, smallest: str) -> None:
    assert mig_profiles(gpu)[0].name == smallest
    assert mig_profiles(gpu)[-1].name.startswith("7g.")


def test_gpus_without_mig_have_no_profiles() -> None:
    assert mig_profiles("nvidia_l40s") == ()
    assert mig_profiles("amd_mi300x") == ()


def test_mixed_instances_use_only_valid_placements() -> None:
    p = {q.name: q for q in mig_profiles("nvidia_a100_sxm4_80gb")}
    assert pack_mig([(p["4g.40gb"], 1), (p["3g.40gb"], 1)]) == 1  # 4g at slot 0, 3g at slot 4
    assert pack_mig([(p["4g.40gb"], 2)]) == 2  # only one 4g placement per GPU
    assert (
        pack_mig([(p["3g.40gb"], 1), (p["2g.20gb"], 1), (p["1g.10gb"], 2)]) == 1
    )  # 3 + 2 + 1 + 1 = 7 slices
    assert pack_mig([(p["2g.20gb"], 3), (p["1g.10gb"], 2)]) == 2  # 2g at 0,2,4 leave only slot 6 for one 1g


def test_the_smallest_profile_holds_memory_and_compute() -> None:
    profiles = mig_profiles("nvidia_a100_sxm4_80gb")
    assert smallest_profile(profiles, 8, 0.125).name == "1g.10gb"
    assert smallest_profile(profiles, 15, 0.1).name == "1g.20gb"
    assert smallest_profile(profiles, 8, 0.25).name == "2g.20gb"
    assert smallest_profile(profiles, 90, 0.1) is None


def test_time_slicing_shares_a_gpu_within_memory_and_compute_after_interference() -> None:
    sliced = pack_service(14, 8, 0.125, 80, mode="time_slicing", gpu_id="nvidia_a100_sxm4_80gb")
    # compute: floor(0.9 / 0.125) = 7 per GPU; memory: 10 per GPU -> 7 per GPU
    assert sliced is not None and sliced.gpus == 2
    memory_bound = pack_service(14, 30, 0.05, 80, mode="time_slicing", gpu_id=None)
    assert memory_bound is not None and memory_bound.gpus == 7
    whole = pack_service(3, 100, 0.5, 80, mode="whole", gpu_id=None)
    assert whole is not None and whole.gpus == 6  # 100 GiB needs two 80 GB GPUs per replica


def test_fifo_waits_in_turn_on_a_full_cluster() -> None:
    arrival = np.zeros(4)
    start = queues.simulate(arrival, np.full(4, 8), np.ones(4), capacity=8)
    assert start.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_backfill_starts_a_short_narrow_job_but_never_delays_the_head() -> None:
    # job 0 holds 6 of 8 GPUs for 10 h; job 1 (8 GPUs) waits for it; job 2 (2 GPUs, 5 h) ends before job 1's
    # reservation and backfills; job 3 (2 GPUs, 20 h) would delay job 1 and waits.
    arrival = np.array([0.0, 0.1, 0.2, 0.3])
    width = np.array([6, 8, 2, 2])
    runtime = np.array([10.0, 1.0, 5.0, 20.0])
    start = queues.simulate(arrival, width, runtime, capacity=8)
    assert start[2] == pytest.approx(0.2)
    assert start[1] == pytest.approx(10.0)
    assert start[3] == pytest.approx(11.0)


def test_a_job_wider_than_the_cluster_never_starts() -> None:
    start = queues.simulate(np.zeros(2), np.array([16, 1]), np.ones(2), capacity=8)
    assert np.isinf(start[0]) and start[1] == 0.0


def test_wait_grows_with_load() -> None:
    rng = np.random.default_rng(1)
    arrival = queues.poisson_arrivals(2000, 1000.0, rng)
    light = queues.queue_stats(arrival, np.full(2000, 4), np.full(2000, 1.0), 16, 1000.0)
    heavy = queues.queue_stats(arrival, np.full(2000, 4), np.full(2000, 1.9), 16, 1000.0)
    assert light.mean_wait_h < heavy.mean_wait_h
    assert heavy.utilisation == pytest.approx(2000 * 4 * 1.9 / (16 * 1000.0), rel=0.05)


def test_the_vectorised_path_for_identical_jobs_equals_the_event_loop() -> None:
    rng = np.random.default_rng(3)
    arrival = queues.poisson_arrivals(5000, 500.0, rng)
    for width, runtime, capacity in ((8, 3.0, 64), (1, 0.7, 5), (4, 2.5, 30), (16, 1.0, 8)):
        w, r = np.full(5000, width), np.full(5000, runtime)
        fast = queues.simulate(arrival, w, r, capacity)
        slow = queues.simulate_events(arrival, w, r, capacity)
        assert np.allclose(fast, slow, equal_nan=True) or (np.isinf(fast).all() and np.isinf(slow).all())
