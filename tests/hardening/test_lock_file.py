"""requirements.lock (`make lock`) pins a version, within pyproject.toml's range, of every dependency; its first
line records the pyproject.toml it was made from (scripts/bootstrap.sh warns when they differ)."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def _pins() -> dict[str, str]:
    text = (ROOT / "requirements.lock").read_text()
    return {
        canonicalize_name(m.group(1)): m.group(2)
        for m in re.finditer(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)", text, flags=re.MULTILINE)
    }


def test_the_lock_pins_every_dependency_within_its_range():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    header = (ROOT / "requirements.lock").read_text().splitlines()[0]
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if header != f"# pyproject-sha256: {digest}":
        pytest.skip("requirements.lock is older than pyproject.toml: run `make lock` (bootstrap warns too)")
    pins = _pins()
    wanted = [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]]
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not pinned in requirements.lock"
        assert requirement.specifier.contains(pins[name], prereleases=True), (requirement, pins[name])
