"""The engine is pure Python: importing it (and running an estimate) must not load Django."""

import json
import os
import subprocess
import sys

SCRIPT = """
import sys
import planner.engine
import planner.engine.api
from planner.engine.api import estimate
from planner.engine.search import layouts as search
from planner.engine import bench
from planner.engine.accuracy import validation
assert 'django' not in sys.modules, sorted(m for m in sys.modules if m.startswith('django'))
print('ok')
"""


def test_importing_the_engine_does_not_import_django():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_package_init_of_planner_stays_empty():
    import planner

    with open(planner.__file__, encoding="utf-8") as handle:
        assert handle.read().strip() == ""


def test_an_estimate_result_is_plain_json(train):
    from planner.engine.api import estimate

    text = json.dumps(estimate(train), allow_nan=False)
    assert json.loads(text)["kind"] == "training"
