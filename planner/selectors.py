"""Read side of the planning pages. Every user-owned object is fetched here, filtered by its owner, so another
user's scenario is a 404 (never a 403 that would confirm it exists)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import Exists, F, OuterRef, QuerySet
from django.db.models.expressions import RawSQL
from django.http import Http404
from django.shortcuts import get_object_or_404

from catalog import rows as catalog_rows
from planner import snapshot as snapshots
from planner.models import Scenario, ScenarioResult, ShareLink
from planner.prepared import PreparedQuery
from planner.reports import charts
from planner.reports.bom import hardware_bom
from planner.reports.columns import INPUT_ROWS, METRICS, Column, best_index, grouped, metrics_for

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
#: Version of the cached results-section markup: bump it when templates/planner/_result_section.html changes
#: in a way that must not serve sections rendered by the old template.
RESULT_SECTION_VERSION = 3
#: How long a rendered results section stays cached (s). Its key changes with anything that changes its HTML.
RESULT_SECTION_TTL_S = 24 * 3600
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
        return f"v{RESULT_SECTION_VERSION}:{result_id}:{self.current_engine_version}:{self.catalog_hash_now}:{updated}"

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


def _results_page_queryset(pk: int, owner_id: int) -> QuerySet:
    """The scenario with its latest result, whether it has earlier results and active share links, and the
    catalog generation that checks the per-process catalog copy (catalog/rows.py), in one query."""
    return (
        Scenario.objects.select_related("latest_result")
        .annotate(
            has_earlier_results=Exists(
                ScenarioResult.objects.filter(scenario=OuterRef("pk")).exclude(
                    pk=OuterRef("latest_result_id")
                )
            ),
            has_share_links=Exists(
                ShareLink.objects.filter(scenario=OuterRef("pk"), revoked_at__isnull=True)
            ),
            catalog_generation=RawSQL(catalog_rows.generation_sql(), ()),
        )
        .filter(pk=pk, owner_id=owner_id)
    )


#: Compiled once per process: compiling this query costs more than running it (planner/prepared.py).
_RESULTS_PAGE_QUERY = PreparedQuery(_results_page_queryset, "pk", "owner_id")


def results_page(*, user: AbstractBaseUser, pk: int, result_id: int | None = None) -> ResultPage:
    """The results page of one of the user's scenarios (404 for anyone else's), from one prepared query; the
    lists of earlier results and share links are asked for only when they are not empty."""
    scenario = _RESULTS_PAGE_QUERY.first(pk=pk, owner_id=user.pk)
    if scenario is None:
        raise Http404("No such scenario.")
    catalog = catalog_rows.current(known_generation=str(scenario.catalog_generation))
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
    rows: list[tuple[Column, list[Any]]] = [(c, [c.value(s) for s in scenarios]) for c in INPUT_ROWS]
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
