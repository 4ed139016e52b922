"""Keys of cached template fragments, derived from what the fragment's markup is made of.

A cached fragment ({% cache %}) must not outlive the code that rendered it: a deploy that changes the template,
one it includes, the URL patterns its links are reversed from, or the Python that builds its context must not
serve fragments rendered by the old code. So the key starts with a hash of those sources (the template, every
template it includes, recursively, the project's URLconf modules and the given modules' files), read once per
process; with DEBUG on it is read on every use, so an edited template shows on the next request of the
development server. The data a fragment shows (result, engine, catalog, scenario version) is the caller's part
of the key. Templates get the same key from `{% fragment_source "name" as key %}` (templatetags/fragment_keys.py).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from django.conf import settings
from django.template.loader import get_template
from django.urls import URLResolver, get_resolver

#: `{% include "name" %}` with a literal name (a fragment including a variable name cannot be keyed this way).
_INCLUDE = re.compile(r"""{%\s*include\s+["']([^"']+)["']""")
#: Hex digits of the source hash kept in the key.
KEY_CHARS = 16


def template_files(name: str) -> list[Path]:
    """The template's file and those of the templates it includes, recursively, each once, in a fixed order."""
    found: dict[str, Path] = {}
    pending = [name]
    while pending:
        current = pending.pop()
        if current in found:
            continue
        path = Path(str(get_template(current).origin.name))
        found[current] = path
        pending += sorted(_INCLUDE.findall(path.read_text(encoding="utf-8")))
    return [found[key] for key in sorted(found)]


def urlconf_files() -> list[Path]:
    """The files of the root URLconf and of every URLconf module it includes, recursively (links in a fragment
    are reversed from them)."""
    found: dict[str, Path] = {}
    pending: list[URLResolver] = [get_resolver()]
    while pending:
        resolver = pending.pop()
        module = resolver.urlconf_module
        if isinstance(module, ModuleType) and getattr(module, "__file__", None):
            found.setdefault(module.__name__, Path(str(module.__file__)))
        pending += [entry for entry in resolver.url_patterns if isinstance(entry, URLResolver)]
    return [found[name] for name in sorted(found)]


def _hash(template: str, modules: tuple[ModuleType, ...]) -> str:
    digest = hashlib.sha256()
    files = [*template_files(template), *urlconf_files(), *(Path(str(module.__file__)) for module in modules)]
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:KEY_CHARS]


_hash_once = functools.lru_cache(maxsize=64)(_hash)


def source_key(template: str, modules: Iterable[ModuleType] = ()) -> str:
    """A short hash of the template, what it includes and the modules (their files), memoised per process
    unless DEBUG is on."""
    found = tuple(modules)
    return _hash(template, found) if settings.DEBUG else _hash_once(template, found)
