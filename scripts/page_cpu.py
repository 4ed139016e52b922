"""CPU time of one results page, in-process: the figure a shared machine distorts least.

    .venv/bin/python scripts/page_cpu.py                 # this checkout, 300 requests
    .venv/bin/python scripts/page_cpu.py --root ../other --requests 400

Builds a throw-away SQLite database (migrate, load_catalog, one user, one evaluated scenario of the first
starter), warms the page with 20 requests, then times `--requests` requests of the results page through Django's
test client (the whole middleware stack, production settings with DEBUG off) and prints the median and mean CPU
time of the process per page. `--root` measures another checkout with this interpreter (before/after runs);
`--profile` prints cProfile's top functions instead. Static files must be collected in that checkout (the
manifest storage needs them; scripts/loadtest.py does it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    os.chdir(root)
    work = tempfile.mkdtemp(prefix="planner-page-cpu-")
    os.environ.pop("REDIS_URL", None)
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "planner.settings",
            "PLANNER_SKIP_DOTENV": "1",
            "DEBUG": "0",
            "SECRET_KEY": "page-cpu-" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN",
            "SECURE_SSL_REDIRECT": "0",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            "DATABASE_URL": f"sqlite:///{work}/db.sqlite3",
            "ALLOWED_HOSTS": "testserver",
            "LOG_LEVEL": "ERROR",
        }
    )
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from planner import services
    from planner.forms import ScenarioForm
    from planner.starters import STARTERS

    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)
    user = get_user_model().objects.create_user("pagecpu", "pagecpu@example.com", "page-cpu-password-1")
    data = {k: ("" if v is None else v) for k, v in STARTERS[0].initial.items()}
    form = ScenarioForm({**data, "name": "Page CPU plan"})
    if not form.is_valid():
        raise SystemExit(f"the starter does not validate: {form.errors}")
    path = services.scenario_create(owner=user, inputs=form.scenario_inputs()).get_absolute_url()
    client = Client()
    client.force_login(user)

    def run(count: int) -> list[float]:
        times = []
        for _ in range(count):
            started = time.process_time()
            status = client.get(path).status_code
            times.append(time.process_time() - started)
            if status != 200:
                raise SystemExit(f"{path}: {status}")
        return times

    run(20)
    if args.profile:
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.enable()
        run(args.requests)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        return 0
    cpu_s = run(args.requests)
    print(
        f"{root}: median {statistics.median(cpu_s) * 1000:.2f} ms CPU per page, mean "
        f"{statistics.mean(cpu_s) * 1000:.2f} ms, {args.requests} requests"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
