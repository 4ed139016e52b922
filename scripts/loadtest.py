"""Load test: gunicorn with several workers on a throw-away SQLite database, driven over loopback.

    .venv/bin/python scripts/loadtest.py                      # both targets, 32 connections, 20 s each
    .venv/bin/python scripts/loadtest.py --duration 10 --connections 64 --workers 4
    .venv/bin/python scripts/loadtest.py --target page        # only the results page (repeatable)
    .venv/bin/python scripts/loadtest.py --postgres postgres://postgres@127.0.0.1:5432 \
        --redis redis://127.0.0.1:6379/8                      # the production stack instead of SQLite

What it does:
1. makes a temporary folder with a fresh SQLite database: migrate, load_catalog, collectstatic, a user with an
   API token and a session, and (when the planning pages are installed) one evaluated scenario;
2. starts gunicorn (`--workers`, sync by default) on a free 127.0.0.1 port with production settings (DEBUG off, a
   random SECRET_KEY, no TLS redirect, the estimate rate limit raised so that it does not distort the test);
3. drives `POST /api/estimate/`, a results page (the scenario's page; the GPU catalog list if there is no
   scenario) and the same result as JSON (`GET /api/scenarios/<id>/results/<id>/`) with `wrk` when installed (Debian: `apt-get install wrk`), else with a threaded Python client,
   each bounded by `--duration` seconds and `--max-requests` requests;
4. prints requests/s, p50/p95/p99 latency and the error count per target, and exits 1 when a target misses
   the goal (>= 200 requests/s, p95 <= 200 ms, no errors) unless `--no-check`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

#: gunicorn's own advice for CPU-bound sync workers: (2 x cores) + 1. Sync workers take one request per
#: connection, so the kernel hands each new connection to a free worker; with keep-alive gthread workers some
#: connections wait behind busy ones (p95 of seconds measured on this machine).
DEFAULT_WORKERS = 2 * (os.cpu_count() or 1) + 1

#: The goal (docs/benchmarks.md): on this 2-core machine, at 32 concurrent connections.
GOAL_REQUESTS_PER_S = 200.0
GOAL_P95_MS = 200.0

#: Body of the estimate requests: Llama 3.1 70B on 64 catalog H100s (a catalog id and a preset, as a script
#: calling the API would send), with economics so that the cost section is computed too.
ESTIMATE_BODY = {
    "cluster": {"gpu": "nvidia_h100_sxm5_80gb", "gpus_per_node": 8, "nodes": 8},
    "workload": {
        "kind": "training",
        "model": "llama3.1-70b",
        "tokens_b": 1000,
        "parallelism": {"tp": 8, "pp": 2, "global_batch": 512},
    },
    "economics": {
        "electricity_usd_per_kwh": 0.08,
        "years": 4,
        "utilization": 0.8,
        "gpu_server_usd": 300000,
        "cloud_usd_per_gpu_hour": 2.5,
    },
}

SETUP_CODE = """
import json
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token

user = get_user_model().objects.create_user("loadtest", "loadtest@example.com", "loadtest-password-1")
token = Token.objects.create(user=user).key
client = Client()
client.force_login(user)
results_path = "/catalog/gpus/"
result_api_path = ""
try:
    from planner import services
    from planner.forms import ScenarioForm
    from planner.starters import STARTERS

    data = {k: ("" if v is None else v) for k, v in STARTERS[0].initial.items()}
    form = ScenarioForm({**data, "name": "Load test plan"})
    if form.is_valid():
        scenario = services.scenario_create(owner=user, inputs=form.scenario_inputs())
        results_path = scenario.get_absolute_url()
        result_api_path = f"/api/scenarios/{scenario.pk}/results/{scenario.latest_result_id}/"
except Exception as exc:  # the planning pages may not be installed yet: fall back to the catalog list
    print("no scenario:", exc, flush=True)
print("SETUP " + json.dumps({"token": token, "session": client.cookies["sessionid"].value,
                              "results_path": results_path, "result_api_path": result_api_path}))
"""

WRK_LUA = """
local max_requests = tonumber(os.getenv("LOADTEST_MAX_REQUESTS_PER_THREAD"))
local counted = 0
wrk.method = os.getenv("LOADTEST_METHOD")
wrk.headers["Authorization"] = os.getenv("LOADTEST_AUTHORIZATION")
wrk.headers["Cookie"] = os.getenv("LOADTEST_COOKIE")
local body_file = os.getenv("LOADTEST_BODY_FILE")
if body_file and body_file ~= "" then
  local f = io.open(body_file, "rb"); wrk.body = f:read("*a"); f:close()
  wrk.headers["Content-Type"] = "application/json"
end
response = function(status, headers, body)
  counted = counted + 1
  if counted >= max_requests then wrk.thread:stop() end
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK {"requests": %d, "duration_s": %f, "p50_ms": %f, "p95_ms": %f, "p99_ms": %f, "max_ms": %f, '
    .. '"errors": %d, "non_2xx": %d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3, latency:percentile(95) / 1e3,
    latency:percentile(99) / 1e3, latency.max / 1e3,
    e.connect + e.read + e.write + e.timeout + e.status, e.status))
end
"""


@dataclass
class Figures:
    target: str
    client: str
    connections: int
    requests: int
    duration_s: float
    requests_per_s: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    errors: int

    def meets_goal(self) -> bool:
        return self.requests_per_s >= GOAL_REQUESTS_PER_S and self.p95_ms <= GOAL_P95_MS and self.errors == 0

    def line(self) -> str:
        verdict = "meets" if self.meets_goal() else "MISSES"
        return (
            f"{self.target:<28} {self.requests_per_s:8.1f} req/s  p50 {self.p50_ms:6.1f} ms  "
            f"p95 {self.p95_ms:6.1f} ms  p99 {self.p99_ms:6.1f} ms  errors {self.errors}  "
            f"({self.requests} requests in {self.duration_s:.1f} s, {self.client}, {self.connections} conns; "
            f"{verdict} the goal)"
        )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(
    workdir: Path, rate_limit: str, database_url: str | None = None, redis_url: str | None = None
) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "planner.settings",
            "PLANNER_SKIP_DOTENV": "1",
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(60),
            "SECURE_SSL_REDIRECT": "0",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            "DATABASE_URL": database_url or f"sqlite:///{workdir / 'db.sqlite3'}",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "RATE_LIMIT_ESTIMATE": rate_limit,
            "LOG_LEVEL": "ERROR",
            "LOADTEST_WORKDIR": str(workdir),
        }
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def create_postgres_database(server_url: str) -> tuple[str, str]:
    """A throw-away database on a PostgreSQL server (URL without a database name): (its URL, its name)."""
    import psycopg

    name = f"planner_loadtest_{secrets.token_hex(4)}"
    with psycopg.connect(f"{server_url.rstrip('/')}/postgres", autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"{server_url.rstrip('/')}/{name}", name


def drop_postgres_database(server_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(f"{server_url.rstrip('/')}/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    if result.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def prepare(env: dict[str, str]) -> dict[str, str]:
    """Database, catalog, static files, a user with a token and a session, and a scenario."""
    manage(env, "migrate", "--noinput")
    manage(env, "load_catalog")
    manage(env, "collectstatic", "--noinput")
    out = manage(env, "shell", "-c", SETUP_CODE)
    line = next(line for line in out.splitlines() if line.startswith("SETUP "))
    return json.loads(line.removeprefix("SETUP "))


def server_log(env: dict[str, str], tail_chars: int = 4000) -> str:
    """The end of gunicorn's log (errors of the app are logged there)."""
    path = Path(env["LOADTEST_WORKDIR"]) / "gunicorn.log"
    return path.read_text(errors="replace")[-tail_chars:] if path.exists() else ""


def start_gunicorn(env: dict[str, str], port: int, args: argparse.Namespace) -> subprocess.Popen:
    gunicorn = Path(PYTHON).with_name("gunicorn")
    command = [
        str(gunicorn),
        "planner.wsgi:application",
        f"--bind=127.0.0.1:{port}",
        f"--workers={args.workers}",
        f"--worker-class={args.worker_class}",
        f"--threads={args.threads}",
        "--backlog=512",
        "--log-level=warning",
    ]
    log = (Path(env["LOADTEST_WORKDIR"]) / "gunicorn.log").open("wb")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + args.boot_timeout  # a loaded shared machine boots workers slowly
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited:\n{server_log(env)}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return process
        except OSError:
            time.sleep(0.2)
    process.terminate()
    raise SystemExit(f"gunicorn did not answer /healthz within {args.boot_timeout} s:\n{server_log(env)}")


@dataclass(frozen=True)
class Target:
    key: str
    name: str
    method: str
    path: str
    headers: dict[str, str]
    body: bytes | None


def check_once(port: int, target: Target, env: dict[str, str]) -> None:
    """One request before the run, so that a misconfigured target fails loudly instead of counting errors."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(target.method, target.path, body=target.body, headers=target.headers)
    response = connection.getresponse()
    content = response.read()
    if response.status != 200:
        raise SystemExit(f"{target.name}: {response.status} {content[:300]!r}\n{server_log(env)}")


def run_wrk(port: int, target: Target, args: argparse.Namespace, workdir: Path) -> Figures:
    script = workdir / "loadtest.lua"
    script.write_text(WRK_LUA)
    body_file = workdir / "body.json"
    body_file.write_bytes(target.body or b"")
    threads = max(1, min(args.client_threads, args.connections))
    env = {
        **os.environ,
        "LOADTEST_METHOD": target.method,
        "LOADTEST_AUTHORIZATION": target.headers.get("Authorization", ""),
        "LOADTEST_COOKIE": target.headers.get("Cookie", ""),
        "LOADTEST_BODY_FILE": str(body_file) if target.body else "",
        "LOADTEST_MAX_REQUESTS_PER_THREAD": str(max(1, args.max_requests // threads)),
    }
    command = [
        "wrk",
        f"--threads={threads}",
        f"--connections={args.connections}",
        f"--duration={args.duration}s",
        "--timeout=10s",
        f"--script={script}",
        f"http://127.0.0.1:{port}{target.path}",
    ]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=args.duration + 60)
    line = next((x for x in result.stdout.splitlines() if x.startswith("WRK ")), None)
    if line is None:
        raise SystemExit(f"wrk failed:\n{result.stdout}\n{result.stderr}")
    raw = json.loads(line.removeprefix("WRK "))
    return Figures(
        target=target.name,
        client="wrk",
        connections=args.connections,
        requests=raw["requests"],
        duration_s=raw["duration_s"],
        requests_per_s=raw["requests"] / raw["duration_s"],
        p50_ms=raw["p50_ms"],
        p95_ms=raw["p95_ms"],
        p99_ms=raw["p99_ms"],
        errors=raw["errors"],
    )


def run_python_client(port: int, target: Target, args: argparse.Namespace) -> Figures:
    """Fallback without wrk: one keep-alive connection per thread (the client's own CPU use lowers the figures)."""
    latencies_s: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop_at = time.monotonic() + args.duration
    budget = [args.max_requests]

    def worker() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.monotonic() < stop_at:
            with lock:
                if budget[0] <= 0:
                    return
                budget[0] -= 1
            started = time.perf_counter()
            try:
                connection.request(target.method, target.path, body=target.body, headers=target.headers)
                response = connection.getresponse()
                response.read()
                ok = response.status == 200
            except OSError:
                ok = False
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            elapsed = time.perf_counter() - started
            with lock:
                latencies_s.append(elapsed)
                errors[0] += 0 if ok else 1

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(args.connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    duration_s = time.monotonic() - started
    cuts = statistics.quantiles(latencies_s, n=100) if len(latencies_s) > 1 else [0.0] * 99
    return Figures(
        target=target.name,
        client="python threads",
        connections=args.connections,
        requests=len(latencies_s),
        duration_s=duration_s,
        requests_per_s=len(latencies_s) / duration_s,
        p50_ms=cuts[49] * 1000,
        p95_ms=cuts[94] * 1000,
        p99_ms=cuts[98] * 1000,
        errors=errors[0],
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--workers", type=int, default=DEFAULT_WORKERS, help=f"gunicorn workers (default {DEFAULT_WORKERS})"
    )
    parser.add_argument("--worker-class", default="sync", choices=["sync", "gthread"])
    parser.add_argument("--threads", type=int, default=1, help="threads per gthread worker (default 1)")
    parser.add_argument("--connections", type=int, default=32, help="concurrent connections (default 32)")
    parser.add_argument("--duration", type=int, default=20, help="seconds per target (default 20)")
    parser.add_argument("--max-requests", type=int, default=50_000, help="request cap per target")
    parser.add_argument("--client-threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--client", choices=["auto", "wrk", "python"], default="auto")
    parser.add_argument(
        "--postgres",
        metavar="URL",
        help="run on a throw-away database on this PostgreSQL server (postgres://user@host:port, no database "
        "name) instead of SQLite",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="use this Redis for the cache and sessions (redis://host:port/db; the cache takes db + 1)",
    )
    parser.add_argument(
        "--target",
        action="append",
        choices=["estimate", "page", "json"],
        help="drive only this target (repeatable; default: all three)",
    )
    parser.add_argument(
        "--boot-timeout",
        type=int,
        default=120,
        help="seconds to wait for gunicorn's first answer (default 120)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON as well")
    parser.add_argument("--no-check", action="store_true", help="exit 0 even when the goal is missed")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    use_wrk = args.client == "wrk" or (args.client == "auto" and shutil.which("wrk") is not None)
    workdir = Path(tempfile.mkdtemp(prefix="planner-loadtest-"))
    server = None
    database_url, database_name = (None, None)
    try:
        if args.postgres:
            database_url, database_name = create_postgres_database(args.postgres)
        env = server_env(workdir, "1000000/s", database_url, args.redis)
        where = f"PostgreSQL database {database_name}" if database_name else f"SQLite database in {workdir}"
        print(f"preparing a throw-away {where} ...", flush=True)
        setup = prepare(env)
        port = free_port()
        server = start_gunicorn(env, port, args)
        targets = [
            Target(
                "estimate",
                "POST /api/estimate/",
                "POST",
                "/api/estimate/",
                {"Authorization": f"Token {setup['token']}", "Content-Type": "application/json"},
                json.dumps(ESTIMATE_BODY).encode(),
            ),
            Target(
                "page",
                f"GET {setup['results_path']}",
                "GET",
                setup["results_path"],
                {"Cookie": f"sessionid={setup['session']}"},
                None,
            ),
        ]
        if setup["result_api_path"]:
            auth = {"Authorization": f"Token {setup['token']}"}
            targets.append(
                Target("json", f"GET {setup['result_api_path']}", "GET", setup["result_api_path"], auth, None)
            )
        if args.target:
            targets = [target for target in targets if target.key in args.target]
        print(
            f"gunicorn: {args.workers} {args.worker_class} workers x {args.threads} threads on 127.0.0.1:{port}; "
            f"client: {'wrk' if use_wrk else 'python threads'}, {args.connections} connections, "
            f"{args.duration} s or {args.max_requests} requests per target",
            flush=True,
        )
        results = []
        for target in targets:
            check_once(port, target, env)
            figures = (
                run_wrk(port, target, args, workdir) if use_wrk else run_python_client(port, target, args)
            )
            results.append(figures)
            print(figures.line(), flush=True)
        if args.json:
            print(json.dumps([asdict(f) for f in results], indent=2))
        return 0 if args.no_check or all(f.meets_goal() for f in results) else 1
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(workdir, ignore_errors=True)
        if database_name:
            drop_postgres_database(args.postgres, database_name)


if __name__ == "__main__":
    sys.exit(main())
