"""Read side of the planning pages. Every user-owned object is fetched here, filtered by its owner, so another
user's scenario is a 404 (never a 403 that would confirm it exists)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import cache
from django.db import connection
from django.db.models import F, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from catalog import rows as catalog_rows
from planner import fragments
from planner import snapshot as snapshots
from planner.models import Scenario, ScenarioResult, ShareLink
from planner.reports import bom, charts, columns, formatting
from planner.reports.bom import hardware_bom
from planner.reports.columns import INPUT_ROWS, METRICS, Column, best_index, grouped, metrics_for
from planner.templatetags import planner_format

#: A scenario's catalog foreign keys: pages attach them from the per-process catalog copy (catalog/rows.py).
SCENARIO_CATALOG_FIELDS = (
    "gpu",
    "system",
    "cpu",
    "network",
    "switch",
    "cooling",
    "electricity",
    "colocation",
    "grid_carbon",
)
#: The same rows as a join, for code that loads scenarios in bulk (reports rendered by a worker).
SCENARIO_RELATED = (*SCENARIO_CATALOG_FIELDS, "system__gpu")
#: Large JSON columns a list does not need.
RESULT_HEAVY_FIELDS = (
    "latest_result__input_payload",
    "latest_result__output",
    "latest_result__catalog_snapshot",
    "latest_result__search_summary",
)
RECENT_SCENARIOS = 5
#: The scenario columns that change on every write of its row: with its id, the key of its cached copy.
_SCENARIO_STATE = ("updated_at", "version", "latest_result_id")
#: How long a results page's scenario (with its latest result) stays cached (s). Its key changes with the row,
#: so this only bounds how long an unused copy holds memory.
PAGE_SCENARIO_TTL_S = 3600
#: The largest id a scenario can have (a 64-bit primary key); larger ids in a URL are no scenario.
_MAX_ID = 2**63 - 1
#: How long a rendered results section stays cached (s). Its key changes with anything that changes its HTML.
RESULT_SECTION_TTL_S = 24 * 3600
#: The cached results section and the modules that build what it shows: its cache key starts with a hash of
#: their sources (planner/fragments.py), so a deploy that changes any of them renders it again.
RESULT_SECTION_TEMPLATE = "planner/_result_section.html"
RESULT_SECTION_MODULES = (charts, bom, columns, formatting, planner_format, sys.modules[__name__])
#: A URL or an arXiv id inside a source text (sources are sentences citing papers and pages).
_LINKABLE = re.compile(r"arXiv:(\d{4}\.\d{4,5})|https?://[^\s()<>]+[^\s()<>.,;:!?'\"]")


def linked_parts(text: Any) -> list[tuple[str, str]]:
    """A source text split into (text, link) parts ("" where the part is plain text): URLs link to themselves,
    arXiv ids to their abstract page. The page links them without `urlize` (slow on long source lists)."""
    value = "" if text is None else str(text)
    parts: list[tuple[str, str]] = []
    position = 0
    for match in _LINKABLE.finditer(value):
        if match.start() > position:
            parts.append((value[position : match.start()], ""))
        arxiv_id = match.group(1)
        parts.append((match.group(0), f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else match.group(0)))
        position = match.end()
    if position < len(value):
        parts.append((value[position:], ""))
    return parts


def scenario_list(*, user: AbstractBaseUser, query: str = "", ordering: str = "-updated_at") -> QuerySet:
    """The user's scenarios with their latest headline figures; a fixed number of queries for any length."""
    qs = (
        Scenario.objects.filter(owner=user)
        .select_related("gpu", "system", "latest_result")
        .defer(*RESULT_HEAVY_FIELDS)
        .annotate(gpu_count=F("nodes") * F("gpus_per_node"))
    )
    if query:
        qs = qs.filter(name__icontains=query)
    ordering = ordering.replace("total_gpus", "gpu_count")
    return qs.order_by(ordering, "-pk")


def scenario_recent(*, user: AbstractBaseUser) -> list[Scenario]:
    return list(scenario_list(user=user)[:RECENT_SCENARIOS])


def gpu_choices(catalog: catalog_rows.CatalogCopy) -> list[tuple[str, str, str]]:
    """(id, vendor, model) of the catalog GPUs a plan can be moved to (those with the numbers the engine
    needs), by vendor and model."""
    from catalog.models import Gpu

    rows = catalog.values(Gpu, "pk", "vendor", "model", "memory_gb", "mem_bandwidth_tbs", "tdp_w")
    return [(pk, vendor, model) for pk, vendor, model, *needed in rows if None not in needed]


def with_catalog_rows(scenario: Scenario, catalog: catalog_rows.CatalogCopy | None = None) -> Scenario:
    """Attach the scenario's catalog rows from the per-process catalog copy: what select_related of
    SCENARIO_RELATED gives, without a ten-table join per request (catalog/rows.py)."""
    catalog = catalog or catalog_rows.current()
    for name in SCENARIO_CATALOG_FIELDS:
        relation = Scenario._meta.get_field(name)
        row = catalog.get(relation.related_model, getattr(scenario, relation.attname))
        if row is not None:  # an id the copy does not know yet is loaded lazily, as without the copy
            relation.set_cached_value(scenario, row)
    return scenario


def scenario_get(*, user: AbstractBaseUser, pk: int) -> Scenario:
    """One of the user's scenarios with its catalog rows, or 404."""
    scenario = get_object_or_404(Scenario.objects.select_related("latest_result"), pk=pk, owner=user)
    return with_catalog_rows(scenario)


def scenario_result_get(*, scenario: Scenario, result_id: int | None = None) -> ScenarioResult | None:
    if result_id is None:
        return scenario.latest_result
    return get_object_or_404(ScenarioResult, pk=result_id, scenario=scenario)


@dataclass
class ResultPage:
    """Everything the results page (and the share page) shows for one stored result."""

    scenario: Scenario
    result: ScenarioResult | None
    is_latest: bool = True
    catalog_changes: list[snapshots.CatalogChange] = field(default_factory=list)
    engine_changed: bool = False
    current_engine_version: str = ""
    metrics: list[Column] = field(default_factory=list)
    catalog_hash_now: str = ""
    history: list[ScenarioResult] = field(default_factory=list)
    share_links: list[ShareLink] = field(default_factory=list)
    #: (id, vendor, model) of the GPUs the plan can be cloned to.
    gpu_choices: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def output(self) -> dict[str, Any]:
        return self.result.output if self.result else {}

    @property
    def metric_groups(self) -> list[tuple[str, list[Column]]]:
        return grouped(self.metrics)

    @property
    def is_stale(self) -> bool:
        return bool(self.catalog_changes) or self.engine_changed

    # The figures below are computed on first use: a cached results section never reads them.

    @cached_property
    def charts(self) -> list[dict[str, Any]]:
        if self.result is None:
            return []
        return charts.result_charts(self.result.output, kind=self.kind)

    @cached_property
    def hardware_bom(self) -> list[dict[str, Any]]:
        return hardware_bom(result=self.result, scenario=self.scenario) if self.result is not None else []

    @cached_property
    def input_assumptions(self) -> list[dict[str, Any]]:
        """The planner's defaults with their source split into linkable parts."""
        rows = self.result.input_assumptions if self.result is not None else []
        return [{**row, "source_parts": linked_parts(row.get("source"))} for row in rows or []]

    @cached_property
    def engine_assumptions(self) -> list[dict[str, Any]]:
        """The engine's assumptions (name first) with their source split into linkable parts."""
        found = self.output.get("assumptions") or {}
        return [
            {**row, "name": name, "source_parts": linked_parts(row.get("source"))}
            for name, row in found.items()
            if isinstance(row, dict)
        ]

    @property
    def kind(self) -> str:
        return self.output.get("kind") or self.scenario.workload_kind

    @property
    def section_cache_key(self) -> str:
        """What the rendered results section (templates/planner/_result_section.html) depends on: the result,
        the engine and catalog it is read against, and the scenario's last change. A change of any of these
        makes a new key, so a stale section is never served; old keys expire after RESULT_SECTION_TTL_S."""
        updated = self.scenario.updated_at.isoformat() if self.scenario.updated_at else ""
        result_id = self.result.pk if self.result else None
        source = fragments.source_key(RESULT_SECTION_TEMPLATE, RESULT_SECTION_MODULES)
        return f"{source}:{result_id}:{self.current_engine_version}:{self.catalog_hash_now}:{updated}"

    @property
    def section_ttl_s(self) -> int:
        return RESULT_SECTION_TTL_S


def _current_engine_version() -> str:
    from planner.engine.api import ENGINE_VERSION

    return ENGINE_VERSION


def result_page(*, scenario: Scenario, result_id: int | None = None, with_history: bool = True) -> ResultPage:
    result = scenario_result_get(scenario=scenario, result_id=result_id)
    page = ResultPage(scenario=scenario, result=result, current_engine_version=_current_engine_version())
    if with_history and getattr(scenario, "has_earlier_results", True):
        page.history = list(scenario.results.only("id", "created_at", "engine_version", "scenario_id")[:20])
    if with_history and getattr(scenario, "has_share_links", True):
        page.share_links = list(scenario.share_links.filter(revoked_at__isnull=True))
    if result is None:
        return page
    page.is_latest = result.pk == scenario.latest_result_id
    snapshot_now = snapshots.catalog_snapshot(scenario)
    page.catalog_changes = snapshots.catalog_changes(result.catalog_snapshot, snapshot_now)
    page.catalog_hash_now = snapshots.snapshot_hash(snapshot_now)
    page.engine_changed = result.engine_version != page.current_engine_version
    page.metrics = metrics_for(page.kind)
    return page


@dataclass(frozen=True)
class _ScenarioState:
    """What the results page reads of a scenario on every view (_scenario_state)."""

    key: str
    has_share_links: bool
    catalog_generation: str


def _scenario_state_sql() -> str:
    """One small SELECT (Django's documented raw SQL, no model instances, nothing to compile): the scenario's
    `updated_at`, `version` and latest result id, whether it has active share links, and the catalog generation
    (catalog/rows.py), for one (id, owner)."""
    quote = connection.ops.quote_name

    def column(model: type[Any], name: str) -> str:
        return quote(model._meta.get_field(name).column)

    scenario, link = quote(Scenario._meta.db_table), quote(ShareLink._meta.db_table)
    state = ", ".join(f"{scenario}.{column(Scenario, name)}" for name in _SCENARIO_STATE)
    return (
        f"SELECT {state}, "
        f"EXISTS (SELECT 1 FROM {link} WHERE {link}.{column(ShareLink, 'scenario')} = {scenario}."
        f"{column(Scenario, 'id')} AND {link}.{column(ShareLink, 'revoked_at')} IS NULL), "
        f"{catalog_rows.generation_sql()} "
        f"FROM {scenario} WHERE {scenario}.{column(Scenario, 'id')} = %s "
        f"AND {scenario}.{column(Scenario, 'owner')} = %s"
    )


def _scenario_state(pk: int, owner_id: int) -> _ScenarioState | None:
    """The state of one of the owner's scenarios, or None (no such scenario, someone else's, an id out of the
    database's range)."""
    if not 0 < pk <= _MAX_ID or owner_id is None:
        return None
    with connection.cursor() as cursor:
        cursor.execute(_scenario_state_sql(), [pk, owner_id])
        row = cursor.fetchone()
    if row is None:
        return None
    *state, has_share_links, generation = row
    return _ScenarioState(
        key=f"planner:page-scenario:{pk}:" + ":".join(str(value).replace(" ", "T") for value in state),
        has_share_links=bool(has_share_links),
        catalog_generation=str(generation),
    )


def _page_scenario(state: _ScenarioState, pk: int) -> Scenario:
    """The scenario with its latest result, from the cache while its row is unchanged, else from the database
    (then cached). Every write of a scenario changes at least one of `updated_at` (each save stamps it),
    `version` or `latest_result_id` (a new result), so a changed row has a new key; results are never changed
    once written. The copy read back is the caller's own (the cache hands out a new one each time)."""
    scenario = cache.get(state.key)
    if scenario is None:
        scenario = Scenario.objects.select_related("latest_result").get(pk=pk)
        #: Whether the history list is worth a query (a result deleted later only costs that one query).
        scenario.has_earlier_results = scenario.results.exclude(pk=scenario.latest_result_id).exists()
        cache.set(state.key, scenario, PAGE_SCENARIO_TTL_S)
    scenario.has_share_links = state.has_share_links
    return scenario


def results_page(*, user: AbstractBaseUser, pk: int, result_id: int | None = None) -> ResultPage:
    """The results page of one of the user's scenarios (404 for anyone else's), in one query after the first
    view: the scenario's state (_scenario_state), the scenario and its result from the cache (_page_scenario),
    the catalog rows from the per-process catalog copy; the lists of earlier results and share links are asked
    for only when there are some."""
    state = _scenario_state(pk, user.pk)
    if state is None:
        raise Http404("No such scenario.")
    scenario = _page_scenario(state, pk)
    catalog = catalog_rows.current(known_generation=state.catalog_generation)
    page = result_page(scenario=with_catalog_rows(scenario, catalog), result_id=result_id)
    page.gpu_choices = gpu_choices(catalog)
    return page


def scenarios_for_compare(*, user: AbstractBaseUser, ids: list[int]) -> list[Scenario]:
    """The user's scenarios in the order asked for; 404 when any id is not theirs. One query."""
    found = {
        s.pk: s
        for s in Scenario.objects.filter(owner=user, pk__in=ids).select_related(
            "gpu", "system", "latest_result"
        )
    }
    if len(found) != len(set(ids)):
        raise Http404("No such scenario.")
    return [found[pk] for pk in ids]


@dataclass(frozen=True)
class ComparisonRow:
    column: Column
    cells: list[str]
    best: set[int]
    differs: bool


def comparison_rows(scenarios: list[Scenario]) -> list[tuple[str, list[ComparisonRow]]]:
    """Inputs and metrics side by side, with the best value of each row marked and differences flagged."""
    kinds = {s.workload_kind for s in scenarios}
    groups: dict[str, list[ComparisonRow]] = {}
    rows: list[tuple[Column, list[Any]]] = [
        (c, [c.value(s) for s in scenarios]) for c in INPUT_ROWS if c.kinds & kinds
    ]
    outputs = [s.latest_result.output if s.latest_result else {} for s in scenarios]
    for column in METRICS:
        if not (column.kinds & kinds):
            continue
        values = [column.value(o) for o in outputs]
        if all(v is None for v in values):
            continue
        rows.append((column, values))
    for column, values in rows:
        cells = [column.formatter(v) for v in values]
        groups.setdefault(column.group, []).append(
            ComparisonRow(column, cells, best_index(values, column.better), len(set(cells)) > 1)
        )
    return list(groups.items())


def share_link_get(*, token: str) -> ShareLink:
    """An active share link with its scenario, or 404 (unknown and revoked tokens look the same)."""
    link = get_object_or_404(
        ShareLink.objects.select_related("scenario__latest_result"), token=token, revoked_at__isnull=True
    )
    with_catalog_rows(link.scenario)
    return link


def share_link_for_scenario(*, scenario: Scenario, link_id: int) -> ShareLink:
    return get_object_or_404(ShareLink, pk=link_id, scenario=scenario)
