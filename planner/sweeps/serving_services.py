"""Write side of serving sweeps (planner/sweeps/serving.py): create one (stored like a training sweep, run by the
same chunk tasks: planner.sweeps.services) and open one of its rows as a scenario. The views call these; the
chunk task reaches serving.evaluate_chunk through services.sweep_chunk_run."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser

from catalog.models import Gpu
from planner import services as planner_services
from planner.models import Scenario
from planner.sweeps import services, serving
from planner.sweeps.models import ChunkStatus, SweepChunk, SweepKind, SweepRun


def serving_sweep_create(
    *, owner: AbstractBaseUser, scenario: Scenario, inputs: serving.ServingSweepInputs
) -> SweepRun:
    """A stored serving sweep of an inference scenario (planner/sweeps/serving.py): every configuration with its
    engine payload in the chunks, queued like a training sweep. SweepRefused above serving.MAX_CONFIGS (the form
    says so first), SpecError for a scenario that does not serve a model."""
    if inputs.count > serving.MAX_CONFIGS:
        raise services.SweepRefused(
            f"{inputs.count:,} configurations; at most {serving.MAX_CONFIGS} are evaluated at once.",
            field="rates",
        )
    if inputs.count == 0:
        raise services.SweepRefused("This sweep has no configuration to evaluate.", field="gpus")
    plan = serving.plan(scenario=scenario, inputs=inputs)
    return services.create_run(
        owner=owner,
        scenario=scenario,
        name=inputs.name or f"Serving sweep of {scenario.name}",
        kind=SweepKind.SERVING,
        spec=plan.spec,
        chunks=plan.chunks,
        total_configs=plan.total_configs,
        plan_s=plan.plan_s,
    )


def serving_open_scenario(*, run: SweepRun, owner: AbstractBaseUser, chunk: int, row: int) -> Scenario:
    """A new scenario: the serving sweep's scenario on the row's GPU, node count and TP at the row's request rate
    (serving.configuration_scenario, the copy the row was the estimate of), evaluated and saved by the planning
    service."""
    source = run.scenario
    if source is None:
        raise services.SweepRefused(
            "The scenario this sweep started from was deleted, so it cannot be copied."
        )
    summary = (
        SweepChunk.objects.filter(run=run, index=chunk, status=ChunkStatus.DONE)
        .values_list("summary", flat=True)
        .first()
    )
    rows = (summary or {}).get("rows") or []
    if not 0 <= row < len(rows):
        raise services.SweepRefused("That configuration is not among the sweep's finished results.")
    config = rows[row]
    if config["output"] is None:
        raise services.SweepRefused(f"The engine refused this configuration: {config['problem']}")
    entry = run.spec["gpus"][config["gpu"]]
    gpu = Gpu.objects.filter(pk=entry.get("catalog_id")).first()
    if gpu is None:
        raise services.SweepRefused(f"The GPU {entry['label']} is no longer in the catalog.")
    copy = serving.configuration_scenario(
        source, gpu, nodes=config["nodes"], tp=config["tp"], rate=config["requests_per_s"]
    )
    inputs = {name: getattr(copy, name) for name in planner_services.CLONED_FIELDS}
    label = (
        f"{gpu.model} × {config['nodes']} nodes, TP{config['tp']} at {config['requests_per_s']:g} requests/s"
    )
    inputs["name"] = f"{label} (from {run.name})"[: Scenario._meta.get_field("name").max_length]
    inputs["notes"] = f"Opened from sweep “{run.name}” (configuration {chunk}:{row})."
    return planner_services.scenario_create(owner=owner, inputs=inputs)
