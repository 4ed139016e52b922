"""Write side of the planning pages: create, update, evaluate, clone and delete scenarios; share links; sign-up.

Every service is keyword-only and transactional. A scenario is evaluated by the engine BEFORE anything is
written, so an engine `SpecError` leaves the database untouched ("nothing saved half-way"). Every figure comes
from the engine's output dict; the services only store it with the payload and the catalog values it used.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from planner import adapters
from planner import snapshot as snapshots
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.results import EstimateResult
from planner.models import Scenario, ScenarioInputs, ScenarioResult, ShareLink
from planner.reports.columns import summary_from_output

#: Bytes of randomness in a share token (secrets.token_urlsafe: 32 bytes -> 43 URL-safe characters).
SHARE_TOKEN_BYTES = 32
#: How long an automatic-parallelism search answer stays in the cache framework (a few kB each). The key is
#: the engine version + the search payload (model, GPU, nodes, GPUs per node, network, precision, batch,
#: tokens), so any change that could change the layout is a new key; expiry only bounds the cache's size.
SEARCH_CACHE_TTL_S = 7 * 24 * 3600
SEARCH_CACHE_PREFIX = "planner:layout-search"
#: Scenario fields a clone copies (everything but identity, ownership, timestamps and the result pointer).
CLONED_FIELDS = tuple(
    f.name
    for f in Scenario._meta.concrete_fields
    if f.name not in {"id", "owner", "name", "created_at", "updated_at", "latest_result"}
)


def scenario_on_gpu(scenario: Scenario, gpu: Any | None = None, *, owner_id: Any = None) -> Scenario:
    """An unsaved copy of `scenario` (CLONED_FIELDS), owned by `owner_id` (default: the scenario's owner), on
    catalog GPU `gpu` when given. On another GPU than the scenario's own, its system template, custom GPU and
    typed node price are dropped (a price typed for the old GPU would misprice the new one); on the same GPU
    the copy is exact. "Clone on another GPU" and every GPU entry of a sweep are built with this."""
    copy = Scenario(owner_id=scenario.owner_id if owner_id is None else owner_id)
    for name in CLONED_FIELDS:
        setattr(copy, name, getattr(scenario, name))
    if gpu is not None and scenario.catalog_gpu_id != gpu.pk:
        copy.gpu, copy.system, copy.custom_gpu, copy.server_price_usd = gpu, None, None, None
    return copy


def _engine() -> Any:
    """The engine API (imported on first use so the site still starts while the engine is being installed)."""
    from planner.engine import api

    return api


@dataclass(frozen=True)
class Evaluation:
    """One engine evaluation of a scenario, not yet stored."""

    engine_version: str
    payload: dict[str, Any]
    output: EstimateResult
    search_summary: dict[str, Any] | None
    snapshot: dict[str, dict[str, Any]]
    catalog_hash: str
    elapsed_ms: float
    input_assumptions: list[dict[str, Any]]


def search_cache_key(engine_version: str, payload_json: str) -> str:
    digest = hashlib.sha256(f"{engine_version}\n{payload_json}".encode()).hexdigest()
    return f"{SEARCH_CACHE_PREFIX}:{digest}"


def _search(engine_version: str, payload_json: str) -> dict[str, Any]:
    """What the page keeps of an automatic search (counts, time, the ranked layouts), from Django's cache (shared
    by the web workers when Redis is configured): the search is deterministic for one engine version and
    payload, and live previews repeat it when only economics or names change, so only the first one pays.
    A fresh copy is returned so callers cannot alter the cached answer."""
    key = search_cache_key(engine_version, payload_json)
    summary_json = cache.get(key)
    if summary_json is None:
        summary_json = _search_json(payload_json)
        cache.set(key, summary_json, SEARCH_CACHE_TTL_S)
    return json.loads(summary_json)


def _search_json(payload_json: str) -> str:
    found = _engine().search(json.loads(payload_json))
    summary = {
        "objective": found.get("objective"),
        "evaluated": found.get("evaluated"),
        "feasible": found.get("feasible"),
        "elapsed_s": found.get("elapsed_s"),
        "best": found.get("best", []),
        "warnings": found.get("warnings", []),
    }
    return json.dumps(summary)


def scenario_evaluation_run(*, scenario: Scenario) -> Evaluation:
    """Run the engine on a (possibly unsaved) scenario. Raises the engine's SpecError on bad input.

    Automatic parallelism: `search` restricted to the scenario's GPU and node count with objective min_time;
    the best feasible layout is then evaluated with `estimate`. When no layout is feasible, see
    `_estimate_without_layout`.
    """
    api = _engine()
    started = time.perf_counter()
    payload = adapters.scenario_payload(scenario)
    search_summary = None
    if adapters.uses_search(scenario):
        search_json = json.dumps(adapters.search_payload(scenario), sort_keys=True)
        search_summary = _search(api.ENGINE_VERSION, search_json)
        if search_summary.get("best"):
            payload = adapters.with_parallelism(payload, search_summary["best"][0]["config"])
            output = api.estimate(payload)
        else:
            output = _estimate_without_layout(api, payload, scenario, search_summary)
    else:
        output = api.estimate(payload)
    elapsed_ms = (time.perf_counter() - started) * 1000
    snapshot = snapshots.catalog_snapshot(scenario)
    return Evaluation(
        engine_version=str(output.get("engine_version") or api.ENGINE_VERSION),
        payload=payload,
        output=output,
        search_summary=search_summary,
        snapshot=snapshot,
        catalog_hash=snapshots.snapshot_hash(snapshot),
        elapsed_ms=elapsed_ms,
        input_assumptions=adapters.planning_inputs(scenario),
    )


def _estimate_without_layout(
    api: Any, payload: dict[str, Any], scenario: Scenario, search_summary: dict[str, Any]
) -> EstimateResult:
    """No searched layout is feasible: show the hand-set layout's figures (by how much it misses) when it is a
    valid layout, else say on the parallelism field why no layout works."""
    try:
        return api.estimate(payload)
    except SpecError as error:
        reasons = "; ".join(search_summary.get("warnings") or []) or str(error)
        message = (
            f"No parallel layout of the {scenario.total_gpus:,} GPUs works for this model "
            f"({search_summary.get('evaluated') or 0:,} tried): {reasons}. Try more or other GPUs, another "
            "global batch, or set the layout by hand."
        )
        raise SpecError(Problem("workload.parallelism", message)) from error


def _result_store(*, scenario: Scenario, evaluation: Evaluation) -> ScenarioResult:
    result = ScenarioResult.objects.create(
        scenario=scenario,
        engine_version=evaluation.engine_version,
        input_payload=evaluation.payload,
        output=evaluation.output,
        search_summary=evaluation.search_summary,
        summary=summary_from_output(evaluation.output),
        catalog_snapshot=evaluation.snapshot,
        catalog_hash=evaluation.catalog_hash,
        elapsed_ms=evaluation.elapsed_ms,
        input_assumptions=evaluation.input_assumptions,
    )
    Scenario.objects.filter(pk=scenario.pk).update(latest_result=result)
    scenario.latest_result = result
    return result


def _assign(scenario: Scenario, inputs: ScenarioInputs) -> None:
    """Set every Scenario input the form gave (ScenarioInputs names Scenario fields only)."""
    for name, value in inputs.items():
        setattr(scenario, name, value)


#: What one live preview may cost (fair use): a custom model's layers and the cluster's GPUs. The layout search
#: loops over pipeline depths up to the layer count, so 100,000 layers on 583,440 GPUs cost 0.41 s of CPU for
#: the search alone (and ~800 MB); at these bounds the worst search measured 83 ms of CPU (1,000 layers on
#: 583,440 GPUs). Real models have at most a few hundred layers; the largest clusters, ~10^5 GPUs.
PREVIEW_MAX_LAYERS = 1_024
PREVIEW_MAX_GPUS = 1_048_576


def preview_cost_problems(inputs: ScenarioInputs) -> dict[str, str]:
    """Form field -> why a live preview of these inputs would cost more than one preview may (empty: fine)."""
    problems: dict[str, str] = {}
    layers = (inputs.get("custom_model") or {}).get("layers")
    if isinstance(layers, int) and layers > PREVIEW_MAX_LAYERS:
        problems["custom_model_layers"] = (
            f"The live preview covers models of up to {PREVIEW_MAX_LAYERS:,} layers (this one has {layers:,}); "
            "real models have a few hundred at most."
        )
    gpus = int(inputs.get("nodes") or 0) * int(inputs.get("gpus_per_node") or 0)
    if gpus > PREVIEW_MAX_GPUS:
        problems["nodes"] = (
            f"The live preview covers clusters of up to {PREVIEW_MAX_GPUS:,} GPUs (this one has {gpus:,}); "
            "use fewer nodes or GPUs per node."
        )
    return problems


def scenario_preview(*, owner: AbstractBaseUser | None, inputs: ScenarioInputs) -> Evaluation:
    """Evaluate form inputs without saving anything (live recalculation on the edit page)."""
    scenario = Scenario(owner=owner)
    _assign(scenario, inputs)
    return scenario_evaluation_run(scenario=scenario)


def scenario_create(*, owner: AbstractBaseUser, inputs: ScenarioInputs) -> Scenario:
    """Create a scenario and its first result; raises SpecError (nothing written) when the engine rejects it."""
    scenario = Scenario(owner=owner)
    _assign(scenario, inputs)
    evaluation = scenario_evaluation_run(scenario=scenario)
    with transaction.atomic():
        scenario.save()
        _result_store(scenario=scenario, evaluation=evaluation)
    return scenario


class ScenarioChanged(Exception):
    """The scenario was saved elsewhere (another tab, another session, the API) after this edit began."""

    def __init__(self, current_version: int) -> None:
        super().__init__(CHANGED_ELSEWHERE_MESSAGE)
        self.current_version = current_version


CHANGED_ELSEWHERE_MESSAGE = (
    "This scenario was changed elsewhere (another tab, another session or the API) after you opened it, so "
    "your edit was not saved. Open it again to see the current inputs, then make your change again."
)


def scenario_update(
    *, scenario: Scenario, inputs: ScenarioInputs, expected_version: int | None = None
) -> Scenario:
    """Change a scenario's inputs and store a new result; earlier results stay readable in its history.
    `expected_version`: the version the edit started from; ScenarioChanged (nothing saved) when another save
    came first. The version check and increment are one conditional UPDATE, so of two racing saves one wins."""
    _assign(scenario, inputs)
    evaluation = scenario_evaluation_run(scenario=scenario)
    with transaction.atomic():
        base = Scenario.objects.filter(pk=scenario.pk)
        if expected_version is not None:
            base = base.filter(version=expected_version)
        if not base.update(version=F("version") + 1):
            current = Scenario.objects.filter(pk=scenario.pk).values_list("version", flat=True).first()
            raise ScenarioChanged(int(current or 0))
        scenario.version = Scenario.objects.values_list("version", flat=True).get(pk=scenario.pk)
        scenario.save()
        _result_store(scenario=scenario, evaluation=evaluation)
    return scenario


def scenario_reevaluate(*, scenario: Scenario) -> ScenarioResult:
    """Evaluate again with today's catalog and engine; the previous result is kept."""
    evaluation = scenario_evaluation_run(scenario=scenario)
    with transaction.atomic():
        Scenario.objects.filter(pk=scenario.pk).update(updated_at=timezone.now())
        return _result_store(scenario=scenario, evaluation=evaluation)


def scenario_clone(
    *, scenario: Scenario, owner: AbstractBaseUser, name: str = "", gpu: Any | None = None
) -> Scenario:
    """Copy a scenario (optionally on another catalog GPU) and evaluate the copy."""
    copy = scenario_on_gpu(scenario, gpu, owner_id=owner.pk)
    copy.name = (name or _clone_name(scenario, gpu))[: Scenario._meta.get_field("name").max_length]
    evaluation = scenario_evaluation_run(scenario=copy)
    with transaction.atomic():
        copy.save()
        _result_store(scenario=copy, evaluation=evaluation)
    return copy


def _short_gpu_name(gpu: Any) -> str:
    """The first word of a GPU's model name: "H100 SXM5 80GB" -> "H100", "B200 (HGX/DGX B200)" -> "B200"."""
    return str(gpu.model).split()[0] if gpu is not None and str(gpu.model).split() else ""


def _clone_name(scenario: Scenario, gpu: Any | None) -> str:
    """ "Copy of X", or X with the GPU's short name swapped ("… on 64 H100s" -> "… on 64 B200s")."""
    if gpu is None:
        return f"Copy of {scenario.name}"
    old = _short_gpu_name(scenario.catalog_gpu)
    new = _short_gpu_name(gpu)
    if old and new and old != new and old in scenario.name:
        return scenario.name.replace(old, new)
    return f"{scenario.name} on {gpu.model}"


def scenario_delete(*, scenario: Scenario) -> None:
    """Delete a scenario with its results and share links."""
    with transaction.atomic():
        Scenario.objects.filter(pk=scenario.pk).update(latest_result=None)
        scenario.delete()


def share_link_create(*, scenario: Scenario) -> ShareLink:
    """The scenario's active read-only link, creating one with an unguessable token if there is none."""
    with transaction.atomic():
        existing = scenario.share_links.select_for_update().filter(revoked_at__isnull=True).first()
        if existing is not None:
            return existing
        return ShareLink.objects.create(scenario=scenario, token=secrets.token_urlsafe(SHARE_TOKEN_BYTES))


def share_link_revoke(*, link: ShareLink) -> ShareLink:
    """Revoke a link; from now on its URL answers 404."""
    ShareLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    link.refresh_from_db()
    return link


def user_signup(*, form: Any) -> AbstractBaseUser:
    """Create a (non-staff) account from a valid SignupForm."""
    with transaction.atomic():
        return form.save()
