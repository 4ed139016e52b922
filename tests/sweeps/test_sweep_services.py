"""Sweep services on the database: create (limits, rows), the chunk claim (twice counts once, takeover, stale
claims), the last chunk's merge, cancel, failure, the eager end-to-end flow and "open as scenario"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from planner.engine.api import estimate
from planner.engine.search import sweep as engine_sweep
from planner.sweeps import conf, selectors, services
from planner.sweeps.adapters import SweepInputs, spec_from_scenario
from planner.sweeps.models import ChunkStatus, SweepChunk, SweepRun, SweepStatus
from planner.sweeps.tasks import sweep_chunk, sweep_fan_out
from tests.sweeps.conftest import A100, H100, make_scenario

pytestmark = pytest.mark.django_db

#: Small chunks so a small sweep has several.
CHUNK_CONFIGS = 2000


def _inputs(catalog_gpus, **overrides) -> SweepInputs:
    values = {
        "name": "Test sweep",
        "gpus": catalog_gpus,
        "nodes": [2, 4],
        "precision": "bf16",
        "space": {"virtual_stages": [1], "cp": [1, 2], "micro_batch": [1, 2, 4]},
        "objective": "min_time",
        "constraints": {},
    }
    values.update(overrides)
    return SweepInputs(**values)


def _gpus(*ids):
    from catalog.models import Gpu

    return [Gpu.objects.get(pk=i) for i in ids]


@pytest.fixture
def create(alice_scenario, alice):
    """Create a sweep of Alice's scenario without running it (its on_commit enqueue never fires in a test
    transaction)."""

    def make(owner=alice, **overrides) -> SweepRun:
        with override_settings(SWEEP_CHUNK_CONFIGS=CHUNK_CONFIGS):
            return services.sweep_create_from_scenario(
                owner=owner, scenario=alice_scenario, inputs=_inputs(_gpus(H100, A100), **overrides)
            )

    return make


def _run_all(run: SweepRun) -> None:
    for index in range(run.chunks_total):
        services.sweep_chunk_run(run_id=run.pk, index=index)


def test_create_writes_the_run_and_its_chunks_and_nothing_runs_yet(create):
    run = create()
    assert run.status == SweepStatus.PENDING and run.chunks_total > 2
    chunks = SweepChunk.objects.filter(run=run)
    assert chunks.count() == run.chunks_total
    assert sum(c.size for c in chunks) == run.total_configs
    assert set(chunks.values_list("status", flat=True)) == {ChunkStatus.PENDING}
    assert run.timings["plan_s"] > 0 and run.engine_version


def test_claiming_a_chunk_twice_counts_it_once(create):
    run = create()
    first = services.sweep_chunk_run(run_id=run.pk, index=0, worker="w1")
    again = services.sweep_chunk_run(run_id=run.pk, index=0, worker="w2")
    taken_over = services.sweep_chunk_run(run_id=run.pk, index=0, worker="w3", takeover=True)
    assert (first.state, again.state, taken_over.state) == ("done", "skipped", "skipped")
    run.refresh_from_db()
    chunk = SweepChunk.objects.get(run=run, index=0)
    assert run.chunks_done == 1 and chunk.attempts == 1 and chunk.claimed_by == "w1"
    assert run.evaluated_configs == chunk.evaluated > 0
    assert run.enumerated_configs == chunk.size
    assert run.status == SweepStatus.RUNNING and run.started_at is not None


def test_a_fresh_claim_elsewhere_is_retried_later_and_a_redelivery_takes_it_over(create):
    run = create()
    SweepChunk.objects.filter(run=run, index=1).update(
        status=ChunkStatus.RUNNING, claim_token="dead", attempts=1
    )
    SweepChunk.objects.filter(run=run, index=1).update(claimed_at=SweepRun.objects.get(pk=run.pk).created_at)
    busy = services.sweep_chunk_run(run_id=run.pk, index=1)
    assert busy.state == "busy" and busy.retry_in_s > 60  # waits until the first claim is stale
    done = services.sweep_chunk_run(run_id=run.pk, index=1, worker="survivor", takeover=True)
    assert done.state == "done"
    chunk = SweepChunk.objects.get(run=run, index=1)
    assert chunk.attempts == 2 and chunk.claimed_by == "survivor" and chunk.status == ChunkStatus.DONE


def test_a_chunk_whose_worker_died_on_every_attempt_fails_the_sweep(create):
    run = create()
    SweepChunk.objects.filter(run=run, index=2).update(
        status=ChunkStatus.RUNNING, claim_token="dead", attempts=3, claimed_at=run.created_at
    )
    assert services.sweep_chunk_run(run_id=run.pk, index=2, takeover=True).state == "failed"
    run.refresh_from_db()
    assert run.status == SweepStatus.FAILED
    assert "Chunk 2 failed: its worker stopped 3 times" in run.error and "SWEEP_CHUNK_CONFIGS" in run.error


@override_settings(SWEEP_CLAIM_STALE_S=0)
def test_a_stale_claim_is_reclaimed_without_a_redelivery(create):
    run = create()
    SweepChunk.objects.filter(run=run, index=0).update(
        status=ChunkStatus.RUNNING, claim_token="dead", attempts=1, claimed_at=run.created_at
    )
    assert services.sweep_chunk_run(run_id=run.pk, index=0).state == "done"
    assert SweepChunk.objects.get(run=run, index=0).attempts == 2


def test_the_worker_that_lost_its_claim_does_not_count_its_chunk(create, monkeypatch):
    """A slow first delivery is taken over by a redelivery that finishes first: only the redelivery counts."""
    run = create()
    real = engine_sweep.evaluate_chunk
    inner: list[str] = []

    def slow_first(spec, chunk):
        if not inner:
            inner.append("started")
            inner[0] = services.sweep_chunk_run(run_id=run.pk, index=0, worker="second", takeover=True).state
        return real(spec, chunk)

    monkeypatch.setattr(engine_sweep, "evaluate_chunk", slow_first)
    outer = services.sweep_chunk_run(run_id=run.pk, index=0, worker="first")
    assert (inner, outer.state) == (["done"], "skipped")
    run.refresh_from_db()
    chunk = SweepChunk.objects.get(run=run, index=0)
    assert run.chunks_done == 1 and run.evaluated_configs == chunk.evaluated
    assert chunk.claimed_by == "second" and chunk.attempts == 2


def test_the_last_chunk_merges_the_stored_chunks_exactly_once(create):
    run = create()
    states = [services.sweep_chunk_run(run_id=run.pk, index=i).state for i in range(run.chunks_total)]
    assert states.count("finished_run") == 1 and states[-1] == "finished_run"
    run.refresh_from_db()
    assert run.status == SweepStatus.DONE and run.finished_at is not None
    assert run.chunks_done == run.chunks_total and run.enumerated_configs == run.total_configs
    chunks = SweepChunk.objects.filter(run=run)
    assert run.evaluated_configs == sum(c.evaluated for c in chunks) == run.result["evaluated"]
    assert run.result["chunks_merged"] == run.chunks_total and "merge_s" in run.timings
    result = run.result
    assert services.sweep_chunk_run(run_id=run.pk, index=0, takeover=True).state == "skipped"
    run.refresh_from_db()
    assert run.result == result and run.chunks_done == run.chunks_total


def test_the_merged_result_equals_the_engine_run_in_process(create):
    run = create()
    _run_all(run)
    run.refresh_from_db()
    plan = engine_sweep.plan_sweep(run.spec, CHUNK_CONFIGS)
    summaries = []
    for chunk in plan.chunks:
        res = engine_sweep.evaluate_chunk(run.spec, chunk)
        summaries.append(engine_sweep.summarize_chunk(res.rows, run.spec, chunk["index"], res.enumerated))
    assert run.result == engine_sweep.merge_summaries(summaries, run.spec)


def test_cancel_stops_outstanding_chunks_and_keeps_the_finished_ones(create):
    run = create()
    services.sweep_chunk_run(run_id=run.pk, index=0)
    assert services.sweep_cancel(run=run) is True
    assert services.sweep_cancel(run=run) is False
    run.refresh_from_db()
    done = SweepChunk.objects.get(run=run, index=0)
    assert run.status == SweepStatus.CANCELLED and done.status == ChunkStatus.DONE and done.rows
    others = set(SweepChunk.objects.filter(run=run).exclude(index=0).values_list("status", flat=True))
    assert others == {ChunkStatus.CANCELLED}
    assert run.result["evaluated"] == done.evaluated == run.evaluated_configs
    assert services.sweep_chunk_run(run_id=run.pk, index=1, takeover=True).state == "skipped"
    assert SweepChunk.objects.get(run=run, index=1).attempts == 0


def test_a_chunk_being_evaluated_when_the_sweep_is_cancelled_is_discarded(create, monkeypatch):
    run = create()
    real = engine_sweep.evaluate_chunk

    def cancel_meanwhile(spec, chunk):
        services.sweep_cancel(run=SweepRun.objects.get(pk=run.pk))
        return real(spec, chunk)

    monkeypatch.setattr(engine_sweep, "evaluate_chunk", cancel_meanwhile)
    assert services.sweep_chunk_run(run_id=run.pk, index=0).state == "skipped"
    run.refresh_from_db()
    assert run.chunks_done == 0 and run.evaluated_configs == 0 and run.status == SweepStatus.CANCELLED


def test_a_chunk_that_raises_fails_the_sweep_with_the_error(create, monkeypatch, eager):
    run = create()

    def broken(spec, chunk):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(engine_sweep, "evaluate_chunk", broken)
    assert sweep_chunk.apply(args=(run.pk, 1)).get() == "failed"
    run.refresh_from_db()
    assert run.status == SweepStatus.FAILED and "Chunk 1 failed: ZeroDivisionError: boom" in run.error
    assert SweepChunk.objects.get(run=run, index=1).status == ChunkStatus.FAILED
    assert not SweepChunk.objects.filter(run=run, status=ChunkStatus.PENDING).exists()


def test_a_sweep_above_the_size_limit_is_refused_with_its_size_and_how_to_narrow(create):
    with override_settings(SWEEP_MAX_CONFIGS=1000), pytest.raises(services.SweepRefused) as err:
        create()
    assert "limit is 1,000" in err.value.message and "configurations" in err.value.message
    assert "Narrow it" in err.value.message and err.value.field == "nodes"
    assert not SweepRun.objects.exists()


@override_settings(SWEEP_MAX_RUNNING_PER_USER=1)
def test_a_user_has_at_most_the_configured_number_of_running_sweeps(create, bob):
    first = create()
    with pytest.raises(services.SweepRefused) as err:
        create()
    assert "already have 1 sweep waiting or running; the limit is 1" in err.value.message
    assert SweepRun.objects.filter(owner=first.owner).count() == 1
    bob_scenario = make_scenario(bob, name="Bob plan")
    services.sweep_create_from_scenario(
        owner=bob, scenario=bob_scenario, inputs=_inputs(_gpus(H100), nodes=[2])
    )
    services.sweep_cancel(run=first)
    assert create().status == SweepStatus.PENDING


def test_the_whole_flow_runs_eagerly_on_celery(create, eager, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        run = create()
    run.refresh_from_db()
    assert run.status == SweepStatus.DONE and run.chunks_done == run.chunks_total
    assert run.enqueue_s > 0 and run.evaluate_s > 0 and run.store_s > 0
    status = selectors.sweep_status(run=run)
    assert status["percent"] == 100.0 and status["active"] is False and status["configs_per_s"] > 0
    best = run.result["best"]["min_time"][0]
    assert best["days"] == min(r["days"] for r in run.result["cluster_best"])
    rows = list(selectors.sweep_row_dicts(run=run))
    assert len(rows) == run.evaluated_configs
    stored = next(r for r in rows if (r["chunk"], r["row"]) == (best["chunk"], best["row"]))
    assert stored["days"] == pytest.approx(best["days"], rel=2.0**-24)
    assert stored["gpu_label"] == best["gpu_label"]


def _unreachable(*args, **kwargs):
    raise ConnectionRefusedError("[Errno 111] Connection refused")


def test_a_broker_that_cannot_be_reached_fails_the_sweep_with_a_message(
    create, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(sweep_fan_out, "apply_async", _unreachable)
    with django_capture_on_commit_callbacks(execute=True):
        run = create()
    run.refresh_from_db()
    assert (
        run.status == SweepStatus.FAILED
        and "Celery broker" in run.error
        and "Connection refused" in run.error
    )


def test_the_fan_out_queues_only_pending_chunks_and_reports_a_refused_queue(create, monkeypatch, eager):
    import celery

    run = create()
    services.sweep_chunk_run(run_id=run.pk, index=0)
    sent = []
    monkeypatch.setattr(
        celery.group, "apply_async", lambda self, **kw: sent.append([t.args for t in self.tasks])
    )
    assert sweep_fan_out.apply(args=(run.pk,)).get() == run.chunks_total - 1
    assert sent == [[(run.pk, i) for i in range(1, run.chunks_total)]]
    monkeypatch.setattr(celery.group, "apply_async", _unreachable)
    assert sweep_fan_out.apply(args=(run.pk,)).get() == 0
    run.refresh_from_db()
    assert run.status == SweepStatus.FAILED and "Could not queue the sweep's chunks" in run.error


def test_open_as_scenario_reproduces_the_rows_figures(create, alice):
    run = create(objective="min_tco")
    _run_all(run)
    run.refresh_from_db()
    for row in (run.result["best"]["min_time"][0], run.result["best"]["min_tco"][0]):
        scenario = services.sweep_open_scenario(run=run, owner=alice, chunk=row["chunk"], row=row["row"])
        out = scenario.latest_result.output
        assert scenario.owner == alice and scenario.nodes == row["nodes"] and scenario.gpu_id is not None
        assert (scenario.tp, scenario.pp, scenario.dp, scenario.micro_batch) == (
            row["tp"],
            row["pp"],
            row["dp"],
            row["micro_batch"],
        )
        assert out["time"]["days"] == pytest.approx(row["days"], rel=1e-12)
        assert out["cost"]["tco_usd"] == pytest.approx(row["tco_usd"], rel=1e-12)
        assert out["power"]["energy_mwh"] == pytest.approx(row["energy_mwh"], rel=1e-12)


def test_open_as_scenario_refuses_a_row_that_does_not_exist(create, alice):
    run = create()
    services.sweep_chunk_run(run_id=run.pk, index=0)
    with pytest.raises(services.SweepRefused):
        services.sweep_open_scenario(run=run, owner=alice, chunk=0, row=10**7)
    with pytest.raises(services.SweepRefused):
        services.sweep_open_scenario(run=run, owner=alice, chunk=1, row=0)  # not finished


def test_each_gpu_is_priced_like_a_clone_on_that_gpu(alice_scenario):
    spec = spec_from_scenario(alice_scenario, _inputs(_gpus(H100, A100)))
    h100, a100 = spec["gpus"]
    assert (
        h100["cluster"]["gpu"]["name"] == "H100 SXM5 80GB"
        and a100["cluster"]["gpu"]["name"] == "A100 SXM4 80GB"
    )
    assert h100["economics"]["gpu_server_usd"] == 8 * (27_500 + 32_010 / 8)
    assert a100["economics"]["gpu_server_usd"] == 8 * (15_000 + 32_010 / 8)
    payload = engine_sweep.payload_for(
        spec,
        1,
        4,
        {
            "tp": 8,
            "pp": 1,
            "dp": 4,
            "cp": 1,
            "ep": 1,
            "virtual_stages": 1,
            "micro_batch": 1,
            "zero_stage": 1,
            "recompute": "selective",
        },
    )
    assert estimate(payload)["cost"]["capex_usd"] > 0


def test_a_gpu_without_a_price_is_refused_by_name(alice_scenario):
    from planner.engine.inputs.errors import SpecError

    with pytest.raises(SpecError) as err:
        spec_from_scenario(alice_scenario, _inputs(_gpus(H100, "google_tpu_v5p")))
    assert err.value.problems[0].path == "gpus" and "TPU v5p" in err.value.problems[0].message


def test_the_default_limit_is_fifty_million_configurations(alice_scenario, alice):
    inputs = _inputs(_gpus(H100, A100), nodes=list(range(1, 501)), space={})
    with pytest.raises(services.SweepRefused) as err:
        services.sweep_create_from_scenario(owner=alice, scenario=alice_scenario, inputs=inputs)
    assert "the limit is 50,000,000" in err.value.message
    assert "2 GPU models × 500 node counts" in err.value.message
    assert not SweepRun.objects.exists()


def test_resume_queues_the_unfinished_chunks_again_and_counts_each_once(create, eager):
    run = create()
    services.sweep_chunk_run(run_id=run.pk, index=0)
    # A resume is only for a stalled sweep (issue 17: resumes on a live sweep queued duplicates).
    stalled_since = timezone.now() - timedelta(seconds=conf.value("SWEEP_STALLED_S") + 1)
    SweepRun.objects.filter(pk=run.pk).update(last_progress_at=stalled_since)
    assert services.sweep_resume(run=run) is True
    run.refresh_from_db()
    assert run.status == SweepStatus.DONE and run.chunks_done == run.chunks_total
    assert run.evaluated_configs == sum(
        SweepChunk.objects.filter(run=run).values_list("evaluated", flat=True)
    )
    assert services.sweep_resume(run=run) is False


@override_settings(SWEEP_STALLED_S=0)
def test_a_sweep_without_progress_offers_to_requeue(create):
    run = create()
    assert selectors.sweep_status(run=run)["stalled"] is True
    services.sweep_cancel(run=run)
    run.refresh_from_db()
    assert selectors.sweep_status(run=run)["stalled"] is False
