"""A real Celery worker process on one queue, started the way the service tests and `scripts/bench_sweep.py`
need it: one prefork pool process, its own name and session (so its whole process group can be stopped), its
output to a log file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def worker_command(name: str, queue: str) -> list[str]:
    """`celery worker` with one prefork pool process consuming `queue`, named `name@host`, without the
    gossip/mingle/heartbeat chatter a short-lived worker does not need."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "planner.celery",
        "worker",
        "-c",
        "1",
        "-P",
        "prefork",
        "-Q",
        queue,
        "-n",
        f"{name}@%h",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]


def start_worker(name: str, queue: str, env: dict[str, str], log: Path) -> subprocess.Popen:
    """The worker of `worker_command`, in its own session (process group), writing to `log`."""
    with open(log, "wb") as out:
        return subprocess.Popen(
            worker_command(name, queue),
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
