"""Match a system's published GPU text ("H100 SXM5 80GB", "B200 (1000 W)") to a catalog GPU id."""

from __future__ import annotations

import re
from collections.abc import Iterable

_PARENS_RE = re.compile(r"\([^()]*\)")
_TOKEN_RE = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[str]:
    return _TOKEN_RE.findall(text.lower())


def _base_tokens(text: str) -> set[str]:
    """Tokens outside parentheses: "B200 (HGX/DGX B200, 1000 W)" -> {"b200"}."""
    return set(_tokens(_PARENS_RE.sub(" ", text)))


def resolve_gpu_id(gpu_text: str, gpus: Iterable[tuple[str, str]]) -> str | None:
    """Return the id of the one GPU `gpu_text` names, or None when it names none or several.

    `gpus` is (id, model) pairs. An exact model match wins; otherwise every word outside parentheses in
    `gpu_text` must appear in the GPU's model (outside parentheses) or its id, and exactly one GPU may qualify:
    "A100 SXM4 (40GB at launch; 80GB later)" fits both A100 SXM4 rows and so stays unresolved.
    """
    wanted_exact = _tokens(gpu_text)
    wanted = _base_tokens(gpu_text)
    if not wanted:
        return None
    candidates: list[str] = []
    for gpu_id, model in gpus:
        if _tokens(model) == wanted_exact:
            return gpu_id
        if wanted <= _base_tokens(model) | set(_tokens(gpu_id.replace("_", " "))):
            candidates.append(gpu_id)
    return candidates[0] if len(candidates) == 1 else None
