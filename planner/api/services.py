"""The API's one call into the engine.

`estimate_run` resolves a catalog GPU id against this site's catalog (so staff edits in the admin apply, as on
the planning pages) and falls back to the engine's seed files for ids the database does not hold.

Each worker process keeps the GPU objects it resolved for `CATALOG_GPU_TTL_S` seconds: the catalog query cost
more than the engine itself (about 2.5 ms against 0.7 ms per estimate, docs/benchmarks.md). A save or delete
of a GPU row clears the memo of the process that made it at once; other worker processes read the row again
within the TTL.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from catalog.models import Gpu
from planner import adapters
from planner.api.economics import economics_defaults
from planner.api.memo import TtlMemo
from planner.engine.inputs.errors import SpecError

logger = logging.getLogger(__name__)

#: Path named when the inputs are valid one by one but drive a figure past what a float holds.
OVERFLOW_PATH = "(input)"
#: Seconds a worker process reuses a catalog GPU it resolved (see the module docstring).
CATALOG_GPU_TTL_S = 5.0

_gpu_memo: TtlMemo[dict[str, Any] | None] = TtlMemo(CATALOG_GPU_TTL_S)


@receiver([post_save, post_delete], sender=Gpu, dispatch_uid="planner.api.services.gpu_changed")
def gpu_memo_clear(**kwargs: Any) -> None:
    _gpu_memo.clear()


def _engine() -> Any:
    """The engine API, imported on first use (the site starts even while the engine is being installed)."""
    from planner.engine import api

    return api


def catalog_gpu_object(gpu_id: str) -> dict[str, Any] | None:
    """The contract `gpu` object of a catalog row with every number the engine needs, else None."""
    row = Gpu.objects.filter(pk=gpu_id).first()
    if row is None or row.missing_key_specs():
        return None  # the engine resolves the id from its seed files or names the problem
    # adapters.gpu_payload applies the engine's PCIe fallback for GPUs without a scale-up fabric
    return {**adapters.gpu_payload(row), "id": row.pk}


def _memo_gpu_object(gpu_id: str) -> dict[str, Any] | None:
    return _gpu_memo.get(gpu_id, lambda: catalog_gpu_object(gpu_id))


def payload_with_catalog_gpu(payload: Any) -> Any:
    """`cluster.gpu: "<catalog id>"` -> the catalog row's contract object (with its id); anything else as is.
    The caller's payload is never changed."""
    cluster = payload.get("cluster") if isinstance(payload, dict) else None
    gpu_id = cluster.get("gpu") if isinstance(cluster, dict) else None
    if not isinstance(gpu_id, str) or len(gpu_id) > Gpu._meta.get_field("id").max_length:
        return payload
    gpu = _memo_gpu_object(gpu_id)
    if gpu is None:
        return payload
    own_copy = {key: dict(value) if isinstance(value, dict) else value for key, value in gpu.items()}
    return {**payload, "cluster": {**cluster, "gpu": own_copy}}


def non_finite_path(value: Any, path: str = "") -> str | None:
    """The dotted path of the first NaN or infinite float in a JSON-like value, or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (path or "(output)")
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = non_finite_path(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


def _overflow(where: str) -> SpecError:
    return SpecError.at(
        OVERFLOW_PATH,
        f"the inputs are outside what the engine can compute ({where} is not a finite number); "
        "use realistic magnitudes",
    )


def estimate_run(*, payload: Any) -> dict[str, Any]:
    """Evaluate one contract payload, its `economics` completed from the catalog as the planning form would
    (planner/api/economics.py). Raises the engine's SpecError (with field paths) for bad input, also when
    valid-looking but extreme inputs overflow a figure (JSON has no infinity to answer with)."""
    defaults = economics_defaults(payload_with_catalog_gpu(payload))
    try:
        output = defaults.add_assumptions(_engine().estimate(defaults.payload))
    except SpecError as exc:
        raise defaults.explain(exc) from exc
    except (OverflowError, ZeroDivisionError) as exc:
        logger.error("engine arithmetic error on accepted input", exc_info=True)
        raise _overflow("a figure") from exc
    try:
        json.dumps(output, allow_nan=False)  # the C encoder: a tenth of walking the tree in Python
    except ValueError as exc:
        where = non_finite_path(output) or "(output)"
        logger.warning("engine produced a non-finite value at %s", where)
        raise _overflow(where) from exc
    return output
