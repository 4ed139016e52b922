"""Settings: DEBUG is off unless set, a real SECRET_KEY is required without DEBUG, and check --deploy is clean."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], extra_env: dict[str, str]) -> subprocess.CompletedProcess:
    overridden = {
        "SECRET_KEY",
        "DEBUG",
        "DJANGO_SETTINGS_MODULE",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "DJANGO_ALLOW_ASYNC_UNSAFE",  # set by the browser tests' conftest, refused by check --deploy
    }
    env = {k: v for k, v in os.environ.items() if k not in overridden and not k.startswith("SECURE_")}
    env.update({"PLANNER_SKIP_DOTENV": "1", "DJANGO_SETTINGS_MODULE": "planner.settings", **extra_env})
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_it_refuses_to_start_without_a_secret_key_when_debug_is_off():
    result = _run(["check"], {})
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_check_deploy_is_clean_with_a_real_key():
    result = _run(["check", "--deploy", "--fail-level", "WARNING"], {"SECRET_KEY": secrets.token_urlsafe(50)})
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr
