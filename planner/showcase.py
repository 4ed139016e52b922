"""The signed-out home page's worked example: one ready-made scenario evaluated by the engine, as a person would
get it from the planning form, with its headline figures, its time range and a chart.

Nothing here is hard-coded: the example is the starter `SHOWCASE_STARTER` (planner/starters.py) run through the
form and the same evaluation as the live preview. The answer is kept in Django's cache under the engine version
and the catalog generation, so a new engine or an edited catalog row computes it again; a miss costs one layout
search, one estimate and two SVG charts (under a second), every other visit none.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache

from catalog import rows as catalog_rows
from planner.engine.inputs.errors import SpecError
from planner.reports import charts as chart_specs
from planner.reports.svg_charts import chart_svg
from planner.starters import STARTERS_BY_KEY, Starter

logger = logging.getLogger(__name__)

#: The starter shown to signed-out visitors: a month-scale pre-training run (planner/starters.py).
SHOWCASE_STARTER = "llama70b-h100-1t"
#: The charts the example shows (keys of planner.reports.charts.result_charts), in page order.
SHOWCASE_CHARTS = ("memory", "own_vs_rent")
CACHE_PREFIX = "planner:showcase:v1"
#: Expiry only bounds how long an unused answer stays; the key changes with the engine and the catalog.
CACHE_TTL_S = 7 * 24 * 3600
#: A failed evaluation (empty catalog on a fresh database) is retried after this long.
FAILURE_TTL_S = 60
#: Drawn small so their text stays legible when a phone scales them down to its width.
CHART_WIDTH_MM = 90.0
CHART_HEIGHT_MM = 66.0


@dataclass(frozen=True)
class WorkedExample:
    """What the home page shows of the example: the starter, the engine's output, the automatic layout search
    and its charts as inline SVG (each a dict with `key`, `title` and `svg`)."""

    starter: Starter
    output: dict[str, Any]
    search: dict[str, Any] | None
    charts: list[dict[str, str]]

    @property
    def kind(self) -> str:
        return str(self.output.get("kind") or "training")


def _cache_key(engine_version: str, generation: str) -> str:
    digest = hashlib.sha256(f"{engine_version}\n{generation}".encode()).hexdigest()[:32]
    return f"{CACHE_PREFIX}:{digest}"


def _evaluate(starter: Starter) -> dict[str, Any] | None:
    """The starter through the scenario form and the preview evaluation; None when the catalog cannot serve it."""
    from planner import services
    from planner.forms import ScenarioForm

    data = {key: "" if value is None else value for key, value in starter.initial.items()}
    form = ScenarioForm(data)
    if not form.is_valid():
        logger.warning("showcase starter %s does not validate: %s", starter.key, form.errors.as_json())
        return None
    try:
        evaluation = services.scenario_preview(owner=None, inputs=form.scenario_inputs())
    except SpecError as error:
        logger.warning("showcase starter %s does not evaluate: %s", starter.key, error)
        return None
    kind = str(evaluation.output.get("kind") or "training")
    specs = {c["key"]: c for c in chart_specs.result_charts(evaluation.output, kind=kind)}
    charts = [
        {
            "key": key,
            "title": specs[key]["title"],
            "svg": chart_svg(specs[key], width_mm=CHART_WIDTH_MM, height_mm=CHART_HEIGHT_MM),
        }
        for key in SHOWCASE_CHARTS
        if key in specs
    ]
    return {"output": evaluation.output, "search": evaluation.search_summary, "charts": charts}


def worked_example() -> WorkedExample | None:
    """The showcase scenario's figures, from the cache or computed once; None while the catalog lacks its rows."""
    from planner.engine.api import ENGINE_VERSION

    starter = STARTERS_BY_KEY[SHOWCASE_STARTER]
    key = _cache_key(ENGINE_VERSION, catalog_rows.generation())
    found = cache.get(key)
    if found is None:
        computed = _evaluate(starter)
        found = computed if computed is not None else {}
        cache.set(key, found, CACHE_TTL_S if computed is not None else FAILURE_TTL_S)
    if not found:
        return None
    return WorkedExample(starter=starter, **found)
