"""Job queues under FIFO with backfill (Slurm's default scheduler: sched/backfill, EASY-style: a later job may
start early only if it does not delay the reservation of the first job waiting; Slurm documentation "Scheduling
Configuration Guide", https://slurm.schedmd.com/sched_config.html).

Arrivals, runtimes and the statistics are numpy arrays. Jobs of one width and one runtime (a queue of one
workload, the fleet's usual case) are simulated without a loop: on c = capacity // width slots, FIFO starts job
i when job i - c ends, s_i = max(a_i, s_{i-c} + d) (backfill cannot help when every job has the same shape), so
each residue class mod c is a Lindley recursion with the closed form s_k = k*d + max_{j<=k}(a_j - j*d), one
np.maximum.accumulate. Mixed jobs go through an event loop over a heap of running jobs, O(n log n).
Arrivals are a Poisson process spread over the period (`seed` fixes them); runtimes are the jobs' measured
single-GPU hours over their Amdahl speed-up.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

#: Queued jobs a backfill pass looks at beyond the first: Slurm's bf_max_job_test default (sched_config guide:
#: "bf_max_job_test ... default 500" in slurm.conf, SchedulerParameters; read 2026-12-01).
BACKFILL_DEPTH = 500


@dataclass(frozen=True)
class QueueStats:
    jobs: int
    mean_wait_h: float
    p90_wait_h: float
    utilisation: float  # busy GPU-hours / (capacity x period hours)
    makespan_h: float


def poisson_arrivals(jobs: int, period_h: float, rng: np.random.Generator) -> np.ndarray:
    """`jobs` arrival times of a Poisson process conditioned on that count: sorted uniform times."""
    return np.sort(rng.uniform(0.0, period_h, size=jobs))


def simulate(arrival_h: np.ndarray, width: np.ndarray, runtime_h: np.ndarray, capacity: int) -> np.ndarray:
    """Start times under FIFO with EASY backfill on `capacity` GPUs (jobs in arrival order). A job wider than the
    capacity never starts (inf)."""
    n = len(arrival_h)
    if n and np.all(width == width[0]) and np.all(runtime_h == runtime_h[0]):
        return simulate_uniform(arrival_h, int(width[0]), float(runtime_h[0]), capacity)
    return simulate_events(arrival_h, width, runtime_h, capacity)


def simulate_uniform(arrival_h: np.ndarray, width: int, runtime_h: float, capacity: int) -> np.ndarray:
    """FIFO start times of identical jobs, vectorised (module docstring: per residue class mod the slot count,
    s_k = k*d + cumulative max of a_j - j*d)."""
    n = len(arrival_h)
    slots = capacity // width if width > 0 else 0
    if slots < 1:
        return np.full(n, np.inf)
    rows = -(-n // slots)
    padded = np.full(rows * slots, np.inf)
    padded[:n] = arrival_h
    grid = padded.reshape(rows, slots)  # column r holds jobs r, r + slots, r + 2 slots, ...
    k = np.arange(rows)[:, None] * runtime_h
    starts = k + np.maximum.accumulate(grid - k, axis=0)
    return starts.reshape(-1)[:n]


def simulate_events(
    arrival_h: np.ndarray, width: np.ndarray, runtime_h: np.ndarray, capacity: int
) -> np.ndarray:
    """Start times of mixed jobs under FIFO with EASY backfill: an event loop over a heap of running jobs."""
    n = len(arrival_h)
    start = np.full(n, np.inf)
    arr = arrival_h.tolist()
    wid = width.astype(int).tolist()
    run = runtime_h.tolist()
    running: list[tuple[float, int]] = []
    queue: list[int] = []
    free = capacity
    min_width = min(wid) if wid else 0
    i = 0
    while i < n or (queue and running):
        next_arr = arr[i] if i < n else math.inf
        next_end = running[0][0] if running else math.inf
        now = min(next_arr, next_end)
        while running and running[0][0] <= now:
            free += heapq.heappop(running)[1]
        while i < n and arr[i] <= now:
            if wid[i] > capacity:
                i += 1
                continue
            queue.append(i)
            i += 1
        started = 0
        while started < len(queue) and wid[queue[started]] <= free:
            j = queue[started]
            start[j] = now
            free -= wid[j]
            heapq.heappush(running, (now + run[j], wid[j]))
            started += 1
        if started:
            del queue[:started]
        if len(queue) > 1 and free >= min_width:
            free = _backfill(queue, wid, run, running, free, now, start)
    return start


def _backfill(
    queue: list[int],
    wid: list[int],
    run: list[float],
    running: list[tuple[float, int]],
    free: int,
    now: float,
    start: np.ndarray,
) -> int:
    """Start later jobs that fit now and do not delay the head's reservation (its shadow time)."""
    head = queue[0]
    avail, shadow = free, math.inf
    for end, w in sorted(running):
        avail += w
        if avail >= wid[head]:
            shadow = end
            break
    extra = avail - wid[head]  # GPUs still free at the shadow time once the head starts
    kept = [head]
    for pos in range(1, len(queue)):
        j = queue[pos]
        if pos <= BACKFILL_DEPTH and wid[j] <= free and (now + run[j] <= shadow or wid[j] <= extra):
            start[j] = now
            free -= wid[j]
            if now + run[j] > shadow:
                extra -= wid[j]
            heapq.heappush(running, (now + run[j], wid[j]))
        else:
            kept.append(j)
        if free < 1:
            kept.extend(queue[pos + 1 :])
            break
    queue[:] = kept
    return free


def queue_stats(
    arrival_h: np.ndarray, width: np.ndarray, runtime_h: np.ndarray, capacity: int, period_h: float
) -> QueueStats:
    start = simulate(arrival_h, width, runtime_h, capacity)
    wait = start - arrival_h
    finite = np.isfinite(wait)
    if not finite.any():
        return QueueStats(len(arrival_h), math.inf, math.inf, 0.0, math.inf)
    busy = float(np.sum(width[finite] * runtime_h[finite]))
    makespan = float(np.max(start[finite] + runtime_h[finite]))
    return QueueStats(
        len(arrival_h),
        float(np.mean(wait[finite])) if finite.all() else math.inf,
        float(np.percentile(wait[finite], 90)) if finite.all() else math.inf,
        busy / (capacity * max(period_h, makespan)),
        makespan,
    )
