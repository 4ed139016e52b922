"""Benchmark of a sweep end to end: submitted -> done with its results stored, on Redis and PostgreSQL
with two Celery worker processes (one process each, like two cores), printing configurations per second and the
time of each phase. Target: >= 1,000,000 evaluated configurations in <= 60 s on a 2-core machine.

    REDIS_URL=redis://127.0.0.1:6379/0 DATABASE_URL=postgres://postgres@127.0.0.1:5432/planner \\
        .venv/bin/python scripts/bench_sweep.py

It works in a throw-away database (<name>_bench_sweep on the same server, dropped afterwards unless --keep-db)
and a throw-away Celery queue, so it never touches the data of the app.
"""

from __future__ import annotations

import argparse
import io
import os
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.sweeps.worker_process import start_worker  # noqa: E402 (after the path insert)

#: The benchmark sweep: Llama 3.1 70B on 15 T tokens, five priced catalog GPUs x 16 node counts, every
#: parallel degree searched (8.9 M configurations of the space, 1.14 M valid layouts evaluated).
GPUS = (
    "nvidia_a100_sxm4_80gb",
    "nvidia_h100_sxm5_80gb",
    "nvidia_h200_sxm_141gb",
    "nvidia_b200_hgx",
    "amd_mi300x",
)
NODES = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048)
WORKERS = 2
READY_TIMEOUT_S = 90
SWEEP_TIMEOUT_S = 600
POLL_S = 0.05


def _bench_db_url(url: str, suffix: str = "_bench_sweep") -> tuple[str, str, str]:
    """(admin URL on the 'postgres' database, bench database URL, bench database name)."""
    parts = urlsplit(url)
    name = (parts.path.lstrip("/") or "planner") + suffix
    admin = urlunsplit(parts._replace(path="/postgres"))
    return admin, urlunsplit(parts._replace(path=f"/{name}")), name


def _admin(admin_url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql)


def _start_workers(queue: str, env: dict[str, str], logs: Path) -> list[subprocess.Popen]:
    workers = []
    for i in range(WORKERS):
        workers.append(start_worker(f"bench{i}-{queue}", queue, env, logs / f"worker{i}.log"))
    deadline = time.monotonic() + READY_TIMEOUT_S
    for i, worker in enumerate(workers):
        log = logs / f"worker{i}.log"
        while b" ready." not in log.read_bytes():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"worker {i} did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
    return workers


def _setup_django() -> None:
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    call_command("load_catalog", stdout=io.StringIO(), stderr=io.StringIO())


def _run_sweep(queue: str) -> int:
    from django.contrib.auth import get_user_model
    from django.test import override_settings

    from catalog.models import Gpu
    from planner.models import ParallelismMode, Scenario
    from planner.sweeps import services
    from planner.sweeps.adapters import SweepInputs

    user, _ = get_user_model().objects.get_or_create(username="bench-sweep")
    scenario = Scenario.objects.create(
        owner=user,
        name="bench: Llama 3.1 70B",
        gpu_id=GPUS[1],
        nodes=64,
        gpus_per_node=8,
        workload_kind="training",
        model_preset="llama3.1-70b",
        tokens_b=15_000.0,
        precision="bf16",
        parallelism_mode=ParallelismMode.AUTOMATIC,
        global_batch=2048,
        electricity_usd_per_kwh=0.08,
        years=5,
        utilization=0.8,
    )
    inputs = SweepInputs(
        name="bench",
        gpus=list(Gpu.objects.filter(pk__in=GPUS)),
        nodes=list(NODES),
        precision="bf16",
        space={},
        objective="min_tco",
        constraints={"days_max": 120.0},
    )
    with override_settings(SWEEP_QUEUE=queue, SWEEP_MAX_RUNNING_PER_USER=100):
        submitted = time.perf_counter()
        run = services.sweep_create_from_scenario(owner=user, scenario=scenario, inputs=inputs)
        while run.is_active and time.perf_counter() - submitted < SWEEP_TIMEOUT_S:
            time.sleep(POLL_S)
            run.refresh_from_db(fields=["status", "chunks_done"])
        end_to_end_s = time.perf_counter() - submitted
    run.refresh_from_db()
    _report(run, end_to_end_s)
    return 0 if run.status == "done" else 1


def _report(run, end_to_end_s: float) -> None:
    from django.db import connection
    from django.db.models import Max, Min

    from planner.sweeps.models import SweepChunk

    span = SweepChunk.objects.filter(run=run).aggregate(first=Min("claimed_at"), last=Max("finished_at"))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(SUM(octet_length(rows)), 0) FROM planner_sweepchunk WHERE run_id = %s", [run.pk]
        )
        stored_bytes = cursor.fetchone()[0]
    best = (run.result or {}).get("best", {}).get("min_tco") or [{}]
    evaluating_s = (
        (span["last"] - span["first"]).total_seconds() if span["first"] and span["last"] else float("nan")
    )
    t = run.timings or {}
    print(f"sweep {run.pk}: {run.status} {run.error}")
    print(
        f"  space               {run.total_configs:>14,} configurations ({len(GPUS)} GPUs x {len(NODES)} node counts)"
    )
    print(
        f"  evaluated           {run.evaluated_configs:>14,} valid layouts ({run.feasible_configs:,} fit in memory)"
    )
    print(f"  chunks              {run.chunks_total:>14,} on {WORKERS} worker processes")
    print(
        f"  stored              {stored_bytes / 1e6:>14.1f} MB of chunk rows ({stored_bytes / max(run.evaluated_configs, 1):.1f} B/config)"
    )
    print(f"  submitted -> done   {end_to_end_s:>14.2f} s   (target <= 60 s)")
    print(f"  throughput          {run.evaluated_configs / end_to_end_s:>14,.0f} evaluated configurations/s")
    print(f"                      {run.total_configs / end_to_end_s:>14,.0f} configurations of the space/s")
    print("  phases:")
    print(f"    plan (request)    {t.get('plan_s', 0):>14.3f} s")
    print(f"    enqueue           {run.enqueue_s:>14.3f} s (request + fan-out task)")
    print(f"    evaluate          {run.evaluate_s:>14.2f} worker-s (sum over chunks)")
    print(
        f"    store             {run.store_s:>14.2f} worker-s (summarise + compress + write, sum over chunks)"
    )
    print(f"    first claim -> last chunk stored {evaluating_s:.2f} s wall")
    print(f"    merge             {t.get('merge_s', 0):>14.3f} s")
    if best[0]:
        b = best[0]
        print(
            f"  lowest TCO within 120 days: {b['gpu_label']} x {b['nodes']} nodes, TP{b['tp']} PP{b['pp']} DP{b['dp']} "
            f"CP{b['cp']} MB{b['micro_batch']} ZeRO{b['zero_stage']} {b['recompute']}: {b['days']:.1f} days, "
            f"TCO ${b['tco_usd'] / 1e6:,.1f} M"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep-db", action="store_true", help="keep the bench database afterwards")
    args = parser.parse_args()
    redis_url, database_url = os.environ.get("REDIS_URL", ""), os.environ.get("DATABASE_URL", "")
    if not redis_url or not database_url.startswith("postgres"):
        print("Set REDIS_URL and a postgres DATABASE_URL (see the docstring).", file=sys.stderr)
        return 2
    admin_url, bench_url, bench_name = _bench_db_url(database_url)
    _admin(admin_url, f'DROP DATABASE IF EXISTS "{bench_name}"')
    _admin(admin_url, f'CREATE DATABASE "{bench_name}"')
    os.environ.update(
        DATABASE_URL=bench_url,
        DJANGO_SETTINGS_MODULE="planner.settings",
        PLANNER_SKIP_DOTENV="1",
        DB_CONN_MAX_AGE="0",
    )
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    queue = f"bench-sweep-{uuid.uuid4().hex[:8]}"
    workers: list[subprocess.Popen] = []
    try:
        _setup_django()
        workers = _start_workers(queue, dict(os.environ), Path(tempfile.mkdtemp(prefix="bench-sweep-")))
        return _run_sweep(queue)
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)
        from django.db import connections

        connections.close_all()
        from planner.celery import app

        with app.connection_for_write() as conn:
            conn.default_channel.client.delete(
                queue, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}"
            )
        if not args.keep_db:
            _admin(admin_url, f'DROP DATABASE IF EXISTS "{bench_name}"')


if __name__ == "__main__":
    sys.exit(main())
