"""Write side of sweeps: create (plan, limits, rows, enqueue on commit), run one chunk (claim with a conditional
UPDATE, evaluate, store, count once), fail, cancel, and open a configuration as a scenario.

Exactly-once accounting without locks held during evaluation:
* a chunk is CLAIMED by `UPDATE ... SET status='running', claim_token=<new> WHERE status='pending'` (or a
  running claim that is stale, or one this delivery may take over: a broker redelivery after a lost worker);
* its results are stored and the chunk flipped to done by `UPDATE ... WHERE status='running' AND
  claim_token=<mine>`, and only when that flip changed a row are the run's counters incremented (F()
  expressions, same transaction), so a chunk delivered twice, or taken over, is counted once;
* the transaction whose increment makes chunks_done == chunks_total (it holds the run's row lock until commit)
  merges the stored chunk summaries and marks the run done: exactly one does.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta
from time import perf_counter
from typing import Any

from celery import group
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from planner import background, queueing, retention
from planner import services as planner_services
from planner.engine.perf.layout import RECOMPUTE_NAMES
from planner.engine.search import sweep as engine_sweep
from planner.engine.version import ENGINE_VERSION
from planner.models import ParallelismMode, Scenario
from planner.sweeps import conf, serving
from planner.sweeps.adapters import SweepInputs, spec_from_scenario
from planner.sweeps.models import (
    ACTIVE_STATUSES,
    OUTSTANDING_CHUNK_STATUSES,
    ChunkStatus,
    SweepChunk,
    SweepKind,
    SweepRun,
    SweepStatus,
)
from planner.sweeps.selectors import sweep_is_stalled

logger = logging.getLogger(__name__)

#: Longest error text kept on a run.
ERROR_MAX_CHARS = 2000


class SweepRefused(Exception):
    """A sweep (or an action on one) the limits or its state do not allow; `field` names the form field."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class QueueUnavailable(SweepRefused):
    """The Celery broker cannot be reached, so the sweep was not created (the caller answers 503)."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(QUEUE_UNAVAILABLE_MESSAGE + (f" ({detail})" if detail else ""))


#: What a user is told when the broker is down (the API's 503 detail starts with "queue unavailable").
QUEUE_UNAVAILABLE_MESSAGE = (
    "queue unavailable: the task queue (Celery broker) cannot be reached, so the sweep was not started; "
    "nothing was saved, try again in a minute"
)


def broker_check() -> None:
    """Raise QueueUnavailable unless the Celery broker answers (planner.queueing.broker_check). Checked before
    anything is written, so a broker outage leaves no sweep behind."""
    try:
        queueing.broker_check()
    except queueing.BrokerDown as exc:
        raise QueueUnavailable(str(exc)) from exc


@dataclass(frozen=True)
class ChunkOutcome:
    """What one delivery of a chunk task did: "done", "finished_run" (it also merged the sweep), "skipped",
    "failed" or "busy" (claimed elsewhere: retry after `retry_in_s`)."""

    state: str
    retry_in_s: float | None = None


# --- create -----------------------------------------------------------------------------------------------


def sweep_create_from_scenario(
    *, owner: AbstractBaseUser, scenario: Scenario, inputs: SweepInputs
) -> SweepRun:
    """Build the spec from a scenario and the sweep form, then create the sweep (SpecError / SweepRefused).
    Serving sweeps are created by planner.sweeps.serving_services.serving_sweep_create."""
    spec = spec_from_scenario(scenario, inputs)
    return sweep_create(owner=owner, scenario=scenario, spec=spec, name=inputs.name)


def sweep_create(
    *, owner: AbstractBaseUser, scenario: Scenario | None, spec: dict[str, Any], name: str = ""
) -> SweepRun:
    """Validate and plan `spec`, refuse it above SWEEP_MAX_CONFIGS or past the user's running limit, write the
    run and its chunks in one transaction and queue one task per chunk when it commits."""
    limit = int(conf.value("SWEEP_MAX_CONFIGS"))
    plan = engine_sweep.plan_sweep(
        spec, chunk_configs=int(conf.value("SWEEP_CHUNK_CONFIGS")), max_configs=limit
    )
    if plan.total_configs > limit:
        raise SweepRefused(engine_sweep.size_message(plan, spec, limit), field="nodes")
    if plan.total_configs == 0:
        raise SweepRefused("This sweep has no configuration to evaluate.", field="nodes")
    default_name = f"Sweep of {scenario.name}" if scenario is not None else "Sweep"
    return create_run(
        owner=owner,
        scenario=scenario,
        name=name or default_name,
        kind=SweepKind.TRAINING,
        spec=spec,
        chunks=plan.chunks,
        total_configs=plan.total_configs,
        plan_s=plan.plan_s,
    )


def create_run(
    *,
    owner: AbstractBaseUser,
    scenario: Scenario | None,
    name: str,
    kind: str,
    spec: dict[str, Any],
    chunks: list[dict[str, Any]],
    total_configs: int,
    plan_s: float,
) -> SweepRun:
    """Refuse past the user's storage or running limit or with the broker down, else write the run and its
    chunks in one transaction and queue its fan-out task when it commits (nothing is left behind on a refusal)."""
    full = retention.sweep_storage_problem(owner)
    if full:
        raise SweepRefused(full)
    broker_check()
    with transaction.atomic():
        # Write first (SQLite takes its write lock here), then serialise this user's creates on the user row
        # (PostgreSQL) and count: a concurrent create commits before we count, so the limit holds.
        run = SweepRun.objects.create(
            owner=owner,
            scenario=scenario,
            kind=kind,
            name=name[: SweepRun._meta.get_field("name").max_length],
            spec=spec,
            total_configs=total_configs,
            chunks_total=len(chunks),
            engine_version=ENGINE_VERSION,
            timings={"plan_s": plan_s},
        )
        list(get_user_model().objects.select_for_update().filter(pk=owner.pk).values_list("pk", flat=True))
        active = SweepRun.objects.filter(owner=owner, status__in=ACTIVE_STATUSES).count()
        allowed = int(conf.value("SWEEP_MAX_RUNNING_PER_USER"))
        if active > allowed:
            raise SweepRefused(
                f"You already have {active - 1} sweep{'s' if active - 1 != 1 else ''} waiting or running; the "
                f"limit is {allowed}. Wait for one to finish or cancel it, then start this one."
            )
        SweepChunk.objects.bulk_create(
            [SweepChunk(run=run, index=c["index"], pieces=c["pieces"], size=c["size"]) for c in chunks],
            batch_size=500,
        )
        queued: list[bool] = []
        transaction.on_commit(lambda: queued.append(_enqueue(run.pk)))
    if queued == [False]:  # committed and published right here, and the broker went down meanwhile
        SweepRun.objects.filter(pk=run.pk, status=SweepStatus.FAILED).delete()
        raise QueueUnavailable()
    return run


def _enqueue(run_id: int, requeue: bool = False) -> bool:
    """Queue the sweep's fan-out task (one message, so the web request stays short even on the embedded
    broker, which writes each message to SQLite); a worker then queues one task per chunk. `requeue`: only
    chunks whose message is older than the stall window (sweep_fan_out)."""
    started = perf_counter()
    queue = conf.value("SWEEP_QUEUE") or ""
    try:
        queueing.publish(queueing.SWEEP_FAN_OUT, run_id, queue, requeue, queue=queue)
    except Exception as exc:  # the broker is unreachable: say so on the run instead of leaving it pending
        logger.exception("sweep %s: could not queue it", run_id)
        _fail_run(run_id, f"Could not queue the sweep's tasks (is the Celery broker running?): {exc}")
        return False
    SweepRun.objects.filter(pk=run_id).update(enqueue_s=F("enqueue_s") + (perf_counter() - started))
    return True


def sweep_fan_out(*, run_id: int, queue: str = "", requeue: bool = False) -> int:
    """Queue one chunk task per chunk still pending (or claimed by a worker long gone) as a group, which
    workers take in parallel, on `queue` (the sweep's queue; "" = the default). Each chunk's `queued_at`
    records the publish. `requeue` (a resume, the recovery task): only chunks whose last message is older than
    SWEEP_STALLED_S, so however often it runs, a chunk whose message is still waiting or held by a worker gets
    no second one; the run's row lock makes concurrent requeues take turns. In eager mode this runs the chunks."""
    started = perf_counter()
    now = timezone.now()
    stale = now - timedelta(seconds=conf.claim_stale_s())
    unfinished = Q(status=ChunkStatus.PENDING) | Q(status=ChunkStatus.RUNNING, claimed_at__lt=stale)
    if requeue:
        old = now - timedelta(seconds=float(conf.value("SWEEP_STALLED_S")))
        unfinished &= Q(queued_at__isnull=True) | Q(queued_at__lt=old)
    with transaction.atomic():
        list(SweepRun.objects.select_for_update().filter(pk=run_id).values_list("pk", flat=True))
        chosen = SweepChunk.objects.filter(unfinished, run_id=run_id, run__status__in=ACTIVE_STATUSES)
        indexes = list(chosen.order_by("index").values_list("index", flat=True))
        SweepChunk.objects.filter(run_id=run_id, index__in=indexes).update(queued_at=now)
    if indexes:
        group(queueing.signature(queueing.SWEEP_CHUNK, run_id, i) for i in indexes).apply_async(
            **({"queue": queue} if queue else {})
        )
    SweepRun.objects.filter(pk=run_id).update(enqueue_s=F("enqueue_s") + (perf_counter() - started))
    return len(indexes)


def sweep_requeue(*, run_id: int, queue: str, include_waiting: bool, now: Any) -> int:
    """Publish again the chunks of an active run whose worker is gone (a stale claim) and, when
    `include_waiting` (the queue holds no waiting message), those still pending whose message was published
    longer than SWEEP_STALLED_S ago. Each chosen chunk's queued_at is stamped under the run's row lock, so two
    passes never publish one chunk twice. The number of chunk messages published (planner.recovery)."""
    chosen = background.lost(
        SweepChunk,
        stale_before=now - timedelta(seconds=conf.claim_stale_s()),
        waiting_before=now - timedelta(seconds=float(conf.value("SWEEP_STALLED_S")))
        if include_waiting
        else None,
    )
    with transaction.atomic():
        list(SweepRun.objects.select_for_update().filter(pk=run_id).values_list("pk", flat=True))
        rows = SweepChunk.objects.filter(chosen, run_id=run_id, run__status__in=ACTIVE_STATUSES)
        indexes = list(rows.order_by("index").values_list("index", flat=True))
        SweepChunk.objects.filter(run_id=run_id, index__in=indexes).update(queued_at=now)
    if indexes:
        group(queueing.signature(queueing.SWEEP_CHUNK, run_id, i) for i in indexes).apply_async(
            **({"queue": queue} if queue else {})
        )
    return len(indexes)


def sweep_resume(*, run: SweepRun) -> bool:
    """Queue the unfinished chunks of a stalled sweep again (after a broker lost its messages): only chunks
    whose message is older than the stall window, counted once when they finish. False when the sweep is not
    active; SweepRefused while it is still making progress."""
    run = SweepRun.objects.defer("result", "spec").filter(pk=run.pk).first() or run
    if run.status not in ACTIVE_STATUSES:
        return False
    if not sweep_is_stalled(run):
        raise SweepRefused(
            "The sweep is still making progress (a chunk finished within the last "
            f"{int(conf.value('SWEEP_STALLED_S'))} s), so nothing was queued again."
        )
    broker_check()
    _enqueue(run.pk, requeue=True)
    return True


# --- one chunk ----------------------------------------------------------------------------------------------


def sweep_chunk_run(*, run_id: int, index: int, worker: str = "", takeover: bool = False) -> ChunkOutcome:
    """Claim chunk `index` of run `run_id`, evaluate it, store its rows and summary and count it once.
    `takeover`: this delivery may take over a fresh running claim (a broker redelivery or our own retry)."""
    now = timezone.now()
    stale_s = conf.claim_stale_s()
    token = uuid.uuid4().hex
    max_attempts = int(conf.value("SWEEP_CHUNK_MAX_ATTEMPTS"))
    claimed = background.claim(
        SweepChunk.objects.filter(run_id=run_id, index=index, run__status__in=ACTIVE_STATUSES),
        now=now,
        stale_s=stale_s,
        takeover=takeover,
        max_attempts=max_attempts,
        claim_token=token,
        claimed_by=worker[:200],
    )
    if not claimed:
        return _unclaimed(run_id, index, now, stale_s, takeover, max_attempts)
    SweepRun.objects.filter(pk=run_id, status=SweepStatus.PENDING).update(
        status=SweepStatus.RUNNING, started_at=now
    )
    spec = SweepRun.objects.values_list("spec", flat=True).get(pk=run_id)
    pieces, size = SweepChunk.objects.values_list("pieces", "size").get(run_id=run_id, index=index)
    done = _evaluate_chunk(spec, index, pieces, size)
    with transaction.atomic():
        flipped = SweepChunk.objects.filter(
            run_id=run_id, index=index, status=ChunkStatus.RUNNING, claim_token=token
        ).update(
            status=ChunkStatus.DONE,
            rows=done.blob,
            summary=done.summary,
            evaluated=done.evaluated,
            feasible=done.summary["feasible"],
            finished_at=timezone.now(),
            evaluate_s=done.evaluate_s,
            store_s=perf_counter() - done.store_started,
        )
        if not flipped:  # cancelled, failed or taken over meanwhile: this delivery's work is not counted
            return ChunkOutcome("skipped")
        SweepRun.objects.filter(pk=run_id).update(
            chunks_done=F("chunks_done") + 1,
            enumerated_configs=F("enumerated_configs") + done.enumerated,
            evaluated_configs=F("evaluated_configs") + done.evaluated,
            feasible_configs=F("feasible_configs") + done.summary["feasible"],
            evaluate_s=F("evaluate_s") + done.evaluate_s,
            store_s=F("store_s") + (perf_counter() - done.store_started),
            last_progress_at=timezone.now(),
        )
        state = SweepRun.objects.values("status", "chunks_done", "chunks_total", "timings").get(pk=run_id)
        if state["status"] == SweepStatus.RUNNING and state["chunks_done"] == state["chunks_total"]:
            _finish(run_id, spec, state["timings"], SweepStatus.DONE)
            return ChunkOutcome("finished_run")
    return ChunkOutcome("done")


@dataclass(frozen=True)
class _EvaluatedChunk:
    blob: bytes | None  # training: every evaluated configuration (engine_sweep.pack_rows); serving: None
    summary: dict[str, Any]  # counts ("feasible") and the rows the merge reads
    enumerated: int
    evaluated: int
    evaluate_s: float
    store_started: float


def _evaluate_chunk(spec: dict[str, Any], index: int, pieces: Any, size: int) -> _EvaluatedChunk:
    """One chunk through the engine: a serving sweep's configurations through `estimate` (serving.evaluate_chunk,
    rows kept in the summary), a training sweep's pieces through engine_sweep (rows packed in a blob)."""
    if spec.get("kind") == SweepKind.SERVING:
        served = serving.evaluate_chunk(pieces, index)
        summary = serving.chunk_summary(served)
        return _EvaluatedChunk(None, summary, size, served.evaluated, served.evaluate_s, perf_counter())
    result = engine_sweep.evaluate_chunk(spec, {"index": index, "pieces": pieces, "size": size})
    started = perf_counter()
    summary = engine_sweep.summarize_chunk(result.rows, spec, index, result.enumerated)
    blob = engine_sweep.pack_rows(result.rows)
    return _EvaluatedChunk(blob, summary, result.enumerated, result.evaluated, result.evaluate_s, started)


def _unclaimed(
    run_id: int, index: int, now: Any, stale_s: float, takeover: bool, max_attempts: int
) -> ChunkOutcome:
    """Why a claim failed: done/cancelled/failed (nothing to do), a chunk whose worker died on every attempt
    (fail the sweep rather than kill workers forever), or a fresh claim elsewhere (retry later)."""
    row = (
        SweepChunk.objects.filter(run_id=run_id, index=index)
        .values("status", "claimed_at", "attempts", "run__status")
        .first()
    )
    if row is None or row["run__status"] not in ACTIVE_STATUSES:
        return ChunkOutcome("skipped")
    stale = row["claimed_at"] is not None and row["claimed_at"] < now - timedelta(seconds=stale_s)
    may_take = row["status"] == ChunkStatus.PENDING or takeover or stale
    if (
        row["status"] in (ChunkStatus.PENDING, ChunkStatus.RUNNING)
        and may_take
        and row["attempts"] >= max_attempts
    ):
        sweep_chunk_fail(
            run_id=run_id,
            index=index,
            error=f"its worker stopped {row['attempts']} times while evaluating it (killed, out of memory or "
            "past the time limit); lower SWEEP_CHUNK_CONFIGS for smaller chunks",
        )
        return ChunkOutcome("failed")
    if row["status"] != ChunkStatus.RUNNING:
        return ChunkOutcome("skipped")
    wait_s = (row["claimed_at"] + timedelta(seconds=stale_s) - now).total_seconds()
    return ChunkOutcome("busy", retry_in_s=max(1.0, wait_s + 1.0))


def _merged(run_id: int, spec: dict[str, Any]) -> dict[str, Any]:
    summaries = (
        SweepChunk.objects.filter(run_id=run_id, status=ChunkStatus.DONE)
        .order_by("index")
        .values_list("summary", flat=True)
    )
    if spec.get("kind") == SweepKind.SERVING:
        return serving.merge(summaries.iterator(chunk_size=200))
    return engine_sweep.merge_summaries(summaries.iterator(chunk_size=200), spec)


def _finish(run_id: int, spec: dict[str, Any], timings: dict[str, Any], status: str) -> None:
    """Merge the stored chunks into the run's result (inside the caller's transaction)."""
    started = perf_counter()
    result = _merged(run_id, spec)
    SweepRun.objects.filter(pk=run_id).update(
        status=status,
        result=result,
        finished_at=timezone.now(),
        timings={**(timings or {}), "merge_s": perf_counter() - started},
    )


def sweep_chunk_fail(*, run_id: int, index: int, error: str) -> bool:
    """A chunk raised: the chunk and the run are failed with the error, outstanding chunks stop. True when this
    call failed the run (a run already finished or cancelled is left alone)."""
    with transaction.atomic():
        SweepChunk.objects.filter(run_id=run_id, index=index, status=ChunkStatus.RUNNING).update(
            status=ChunkStatus.FAILED, finished_at=timezone.now()
        )
        return _fail_run(run_id, f"Chunk {index} failed: {error}")


def sweep_queue_failed(*, run_id: int, error: str) -> bool:
    """The chunk tasks could not be queued: fail the sweep with the reason."""
    return _fail_run(run_id, error)


def _fail_run(run_id: int, error: str) -> bool:
    with transaction.atomic():
        failed = SweepRun.objects.filter(pk=run_id, status__in=ACTIVE_STATUSES).update(
            status=SweepStatus.FAILED, error=error[:ERROR_MAX_CHARS], finished_at=timezone.now()
        )
        if failed:
            SweepChunk.objects.filter(run_id=run_id, status__in=OUTSTANDING_CHUNK_STATUSES).update(
                status=ChunkStatus.CANCELLED
            )
    return bool(failed)


# --- cancel, open as scenario -------------------------------------------------------------------------------


def sweep_cancel(*, run: SweepRun) -> bool:
    """Stop a waiting or running sweep: outstanding chunks are cancelled (a chunk being evaluated is discarded
    when it tries to store), finished chunks are kept and merged into the result. False when not active."""
    with transaction.atomic():
        cancelled = SweepRun.objects.filter(pk=run.pk, status__in=ACTIVE_STATUSES).update(
            status=SweepStatus.CANCELLED, finished_at=timezone.now()
        )
        if not cancelled:
            return False
        SweepChunk.objects.filter(run_id=run.pk, status__in=OUTSTANDING_CHUNK_STATUSES).update(
            status=ChunkStatus.CANCELLED
        )
        timings = SweepRun.objects.values_list("timings", flat=True).get(pk=run.pk)
        _finish(run.pk, run.spec, timings, SweepStatus.CANCELLED)
    run.refresh_from_db()
    return True


def sweep_configuration(*, run: SweepRun, chunk: int, row: int) -> dict[str, Any]:
    """One evaluated configuration of a finished chunk (GPU index, nodes, degrees, figures), or SweepRefused."""
    blob = (
        SweepChunk.objects.filter(run=run, index=chunk, status=ChunkStatus.DONE)
        .values_list("rows", flat=True)
        .first()
    )
    if blob is None:
        raise SweepRefused("That configuration is not among the sweep's finished results.")
    rows = engine_sweep.unpack_rows(blob)
    if not 0 <= row < len(rows["gpu"]):
        raise SweepRefused("That configuration is not among the sweep's finished results.")
    return {key: rows[key][row].item() for key, _ in engine_sweep.ROW_COLUMNS}


def sweep_open_scenario(*, run: SweepRun, owner: AbstractBaseUser, chunk: int, row: int) -> Scenario:
    """A new scenario: the sweep's scenario on the row's GPU and node count with the row's layout set by hand
    (evaluated and saved by the planning service, so its figures come from `estimate`)."""
    from catalog.models import Gpu

    source = run.scenario
    if source is None:
        raise SweepRefused("The scenario this sweep started from was deleted, so it cannot be copied.")
    config = sweep_configuration(run=run, chunk=chunk, row=row)
    if config["virtual_stages"] != 1:
        raise SweepRefused(
            "This layout uses an interleaved pipeline (virtual stages > 1), which a scenario cannot store yet."
        )
    entry = run.spec["gpus"][config["gpu"]]
    gpu = Gpu.objects.filter(pk=entry.get("catalog_id")).first()
    if gpu is None:
        raise SweepRefused(f"The GPU {entry['label']} is no longer in the catalog.")
    copy = planner_services.scenario_on_gpu(source, gpu)
    inputs = {name: getattr(copy, name) for name in planner_services.CLONED_FIELDS}
    inputs.update(
        nodes=config["nodes"],
        precision=run.spec["base"]["workload"].get("precision", source.precision),
        parallelism_mode=ParallelismMode.MANUAL,
        tp=config["tp"],
        pp=config["pp"],
        dp=config["dp"],
        cp=config["cp"],
        ep=config["ep"],
        zero_stage=config["zero_stage"],
        recompute=RECOMPUTE_NAMES[config["recompute"]],
        micro_batch=config["micro_batch"],
    )
    label = f"{gpu.model} × {config['nodes']} nodes, TP{config['tp']} PP{config['pp']} DP{config['dp']}"
    inputs["name"] = f"{label} (from {run.name})"[: Scenario._meta.get_field("name").max_length]
    inputs["notes"] = f"Opened from sweep “{run.name}” (configuration {chunk}:{row})."
    return planner_services.scenario_create(owner=owner, inputs=inputs)
