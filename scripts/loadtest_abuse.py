"""Fair-use load test: one normal user's latency, quiet and then beside one abusive user, on one server.

    .venv/bin/python scripts/loadtest_abuse.py                 # 20 s quiet, then 20 s with the abuser
    .venv/bin/python scripts/loadtest_abuse.py --duration 30 --abusers 8

The server is scripts/loadtest.py's (gunicorn, production settings, a throw-away SQLite database), with the
fair-use limits as shipped. The normal user alternates the live preview of the 70B starter and its results
page, one request at a time per connection (`--normal-connections`, default 2). The abusive user runs
`--abusers` threads (default 8), round-robin over the attacks the hardening review found: previews of a 100,000-layer model on
72,930 nodes, comparison PDFs of every ordering of 4 scenarios, and re-queues of a sweep. Phases run back to back
(quiet, then abusive), each bounded by `--duration` seconds. It prints the normal user's p50/p95 in each phase,
the abuser's answers by status, and exits 1 when the normal user's p95 with the abuser is above twice the quiet
one (unless `--no-check`). Other engineers share this machine: run it twice and compare.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import itertools
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import loadtest  # noqa: E402 (scripts/loadtest.py: the server it starts)

SETUP_CODE = """
import json, itertools
from datetime import timedelta
from urllib.parse import urlencode
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from planner import services
from planner.forms import ScenarioForm
from planner.starters import STARTERS_BY_KEY
from planner.sweeps.models import SweepRun

CSRF = "a" * 32
def session(user):
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value
data = {k: ("" if v is None else v) for k, v in STARTERS_BY_KEY["llama70b-h100"].initial.items()}
def make(user, name, **extra):
    form = ScenarioForm({**data, "name": name, **extra})
    assert form.is_valid(), form.errors
    return services.scenario_create(owner=user, inputs=form.scenario_inputs())
users = get_user_model().objects
normal = users.create_user("normal", "n@example.com", "normal-password-1")
abuser = users.create_user("abuser", "a@example.com", "abuser-password-1")
mine = make(normal, "Normal plan")
theirs = [make(abuser, f"Abuse {i}", nodes=4 + i) for i in range(4)]
stuck = SweepRun.objects.create(owner=abuser, name="stuck", spec={}, engine_version="x", status="running")
SweepRun.objects.filter(pk=stuck.pk).update(created_at=timezone.now() - timedelta(hours=1))
attack = {**data, "model_preset": "custom", "custom_model_layers": 100000, "custom_model_hidden": 8192,
          "custom_model_heads": 64, "custom_model_kv_heads": 8, "custom_model_ffn_hidden": 28672,
          "custom_model_ffn_type": "swiglu", "custom_model_vocab": 128256, "custom_model_seq_len": 8192,
          "nodes": 72930}
orderings = ["/reports/compare/report.pdf?" + "&".join(f"ids={s.pk}" for s in order)
             for order in itertools.permutations(theirs)]
print("SETUP " + json.dumps({
    "csrf": CSRF, "normal_session": session(normal), "abuser_session": session(abuser),
    "results_path": mine.get_absolute_url(), "preview_body": urlencode(data),
    "attack_body": urlencode(attack), "orderings": orderings, "resume_path": f"/sweeps/{stuck.pk}/resume/",
}))
"""


def _request(
    connection: http.client.HTTPConnection, method: str, path: str, headers: dict, body: bytes | None
) -> int:
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    return response.status


def _headers(session: str, csrf: str, form: bool) -> dict[str, str]:
    headers = {
        "Cookie": f"sessionid={session}; csrftoken={csrf}",
        "X-CSRFToken": csrf,
        "Referer": "http://x/",
    }
    if form:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    return headers


def normal_user(port: int, setup: dict, duration_s: float, connections: int) -> list[float]:
    """Latencies (s) of the normal user's preview / results-page requests over `duration_s`."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop_at = time.monotonic() + duration_s
    post = _headers(setup["normal_session"], setup["csrf"], form=True)
    get = _headers(setup["normal_session"], setup["csrf"], form=False)
    calls = [
        ("POST", "/scenarios/new/preview/", post, setup["preview_body"].encode()),
        ("GET", setup["results_path"], get, None),
    ]

    def run() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for method, path, headers, body in itertools.cycle(calls):
            if time.monotonic() >= stop_at:
                return
            started = time.perf_counter()
            try:
                ok = _request(connection, method, path, headers, body) == 200
            except OSError:
                ok = False
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            with lock:
                latencies.append(time.perf_counter() - started)
                errors[0] += not ok
            time.sleep(0.25)  # a person: the preview fires 250 ms after typing stops

    threads = [threading.Thread(target=run) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors[0]:
        print(f"normal user: {errors[0]} answers were not 200", flush=True)
    return latencies


def abusive_user(port: int, setup: dict, stop: threading.Event, threads: int) -> collections.Counter:
    """The abuser's answers by (kind, status) until `stop` is set."""
    answers: collections.Counter = collections.Counter()
    lock = threading.Lock()
    post = _headers(setup["abuser_session"], setup["csrf"], form=True)
    get = _headers(setup["abuser_session"], setup["csrf"], form=False)
    kinds = itertools.cycle(["preview", "report", "resume"])
    orderings = itertools.cycle(setup["orderings"])

    def run() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while not stop.is_set():
            with lock:
                kind, ordering = next(kinds), next(orderings)
            if kind == "preview":
                call = ("POST", "/scenarios/new/preview/", post, setup["attack_body"].encode())
            elif kind == "report":
                call = ("GET", ordering, get, None)
            else:
                call = ("POST", setup["resume_path"], post, b"")
            try:
                status = _request(connection, *call)
            except OSError:
                status = 0
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            with lock:
                answers[(kind, status)] += 1

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    stop.wait()
    for worker in workers:
        worker.join()
    return answers


def figures(latencies: list[float]) -> tuple[float, float, int]:
    cuts = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    return cuts[49] * 1000, cuts[94] * 1000, len(latencies)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=20, help="seconds per phase (default 20)")
    parser.add_argument("--workers", type=int, default=loadtest.DEFAULT_WORKERS, help="gunicorn workers")
    parser.add_argument("--normal-connections", type=int, default=2)
    parser.add_argument("--abusers", type=int, default=8, help="abusive threads (default 8)")
    parser.add_argument("--no-check", action="store_true")
    parser.add_argument(
        "--boot-timeout",
        type=int,
        default=120,
        help="seconds to wait for gunicorn's first answer (default 120)",
    )
    args = parser.parse_args(argv)
    args.worker_class, args.threads = "sync", 1
    workdir = Path(tempfile.mkdtemp(prefix="planner-abuse-"))
    server = None
    try:
        env = loadtest.server_env(workdir, "120/min")
        print(f"preparing a throw-away SQLite database in {workdir} ...", flush=True)
        loadtest.manage(env, "migrate", "--noinput")
        loadtest.manage(env, "load_catalog")
        loadtest.manage(env, "collectstatic", "--noinput")
        out = loadtest.manage(env, "shell", "-c", SETUP_CODE)
        setup = json.loads(next(x for x in out.splitlines() if x.startswith("SETUP ")).removeprefix("SETUP "))
        port = loadtest.free_port()
        server = loadtest.start_gunicorn(env, port, args)
        print(f"gunicorn: {args.workers} sync workers; phases of {args.duration} s", flush=True)
        quiet = figures(normal_user(port, setup, args.duration, args.normal_connections))
        stop = threading.Event()
        box: dict[str, collections.Counter] = {}
        abuser = threading.Thread(target=lambda: box.update(a=abusive_user(port, setup, stop, args.abusers)))
        abuser.start()
        time.sleep(1)
        loud = figures(normal_user(port, setup, args.duration, args.normal_connections))
        stop.set()
        abuser.join()
        print(
            f"normal user, quiet:        p50 {quiet[0]:7.1f} ms  p95 {quiet[1]:7.1f} ms  ({quiet[2]} requests)"
        )
        print(
            f"normal user, with abuser:  p50 {loud[0]:7.1f} ms  p95 {loud[1]:7.1f} ms  ({loud[2]} requests)"
        )
        print("abuser's answers: " + ", ".join(f"{k} {s}: {n}" for (k, s), n in sorted(box["a"].items())))
        ratio = loud[1] / quiet[1] if quiet[1] else float("inf")
        print(f"p95 ratio {ratio:.2f} (goal <= 2)")
        return 0 if args.no_check or ratio <= 2 else 1
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
