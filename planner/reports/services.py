"""Write side of the PDF exports: ask for a report, render it (in the request or on a worker), retry it.

A report is a `Report` row. `report_request` reuses a finished or running row with the same fingerprint (same
results, same share link, same report format), else creates one and either renders it at once or hands its id
to Celery, decided by how long that kind of report has been taking to render (`expected_render_ms`): a PDF
that takes longer than about a second renders on a worker, with a "preparing…" page. `report_render` claims
the row with a conditional UPDATE, so a task delivered twice renders once.

`report_prerender` starts a saved result's PDF on a worker when its page is first opened, so that the click on
"PDF report" usually finds it ready (one click to a file). It is the app's own work, not the user's: it spends
none of their rate limits, is not counted in their pending-report limit (it has its own, small one), never
renders in the request, and gives up silently (logged) when the broker is down, so a page never fails for it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import statistics
import time
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from planner import background, queueing, retention
from planner import selectors as planner_selectors
from planner.models import Scenario
from planner.reports import pdf
from planner.reports.models import Report, ReportKind, ReportStatus

logger = logging.getLogger(__name__)

#: Bump when a report template or its figures change: older finished PDFs then no longer match a request.
REPORT_FORMAT_VERSION = "2"
#: A PDF that takes longer than about a second renders in a Celery task.
DIRECT_RENDER_MAX_MS = 1000.0
#: How many recent renders of a kind decide whether the next one renders in the request (their median).
RECENT_RENDERS = 5
#: Expected render time of a kind before any has been rendered here: measured on the 2-core development machine
#: (scenario report of the 64-GPU Llama 3.1 70B plan, 11 pages with 6 charts: 1.7-2.4 s; comparison of 3
#: scenarios: about 1 s; sweep report: about 1 s). All above the limit, so the first ones go to a worker.
EXPECTED_RENDER_MS_DEFAULT: dict[str, float] = {
    ReportKind.SCENARIO: 2000.0,
    ReportKind.COMPARISON: 1200.0,
    ReportKind.SWEEP: 1200.0,
}
#: A render claimed longer ago than this is taken over (its worker was lost): the task's hard limit + a minute.
REPORT_TIME_LIMIT_S = 300
CLAIM_STALE_S = REPORT_TIME_LIMIT_S + 60


def claim_stale_s() -> float:
    """settings.REPORT_CLAIM_STALE_S, else CLAIM_STALE_S (read on each call, so tests and workers may lower it)."""
    from django.conf import settings

    return float(getattr(settings, "REPORT_CLAIM_STALE_S", None) or CLAIM_STALE_S)


#: Reports of one user waiting for or on a worker at once (settings.REPORT_MAX_PENDING_PER_USER).
MAX_PENDING_PER_USER_DEFAULT = 3


class ReportRefused(Exception):
    """A report the per-user limits (pending reports, stored PDFs) do not allow now (the view answers 429)."""


class ReportQueueUnavailable(Exception):
    """The Celery broker cannot be reached: no report row was kept (the view answers 503)."""


QUEUE_UNAVAILABLE_MESSAGE = (
    "queue unavailable: the task queue (Celery broker) cannot be reached, so the report was not started; "
    "nothing was saved, try again in a minute"
)


def report_fingerprint(*, kind: str, params: dict[str, Any]) -> str:
    text = json.dumps({"kind": kind, "params": params, "format": REPORT_FORMAT_VERSION}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def expected_render_ms(*, kind: str) -> float:
    """The median wall-clock render time of the last few reports of this kind, or the measured default."""
    recent = list(
        Report.objects.filter(kind=kind, status=ReportStatus.DONE, render_ms__isnull=False)
        .order_by("-finished_at")
        .values_list("render_ms", flat=True)[:RECENT_RENDERS]
    )
    return statistics.median(recent) if recent else EXPECTED_RENDER_MS_DEFAULT[kind]


def scenario_report_params(*, scenario: Scenario, base_url: str) -> dict[str, Any]:
    return {
        "scenario_id": scenario.pk,
        "result_id": scenario.latest_result_id,
        "share_url": pdf.share_url_for(scenario, base_url=base_url),
    }


def scenario_report_prerender(
    *, owner: AbstractBaseUser, scenario: Scenario, active_share_links: list[Any], base_url: str
) -> Report | None:
    """Start the PDF of the scenario's latest result ahead of the click (report_prerender), with the params the
    click will ask for (`active_share_links`: the scenario's active links, newest first, as the page read them)."""
    if scenario.latest_result_id is None:
        return None
    params = {
        "scenario_id": scenario.pk,
        "result_id": scenario.latest_result_id,
        "share_url": pdf.share_url_from(active_share_links, base_url=base_url),
    }
    return report_prerender(
        owner=owner, kind=ReportKind.SCENARIO, params=params, title=f"{scenario.name}: scenario report"
    )


def sweep_report_prerender(*, owner: AbstractBaseUser, run: Any) -> Report | None:
    """Start a finished sweep's PDF ahead of the click (report_prerender)."""
    if not run.result or run.is_active:
        return None
    return report_prerender(
        owner=owner,
        kind=ReportKind.SWEEP,
        params=sweep_report_params(run=run),
        title=f"{run.name}: sweep report",
    )


def comparison_report_params(*, scenarios: list[Scenario]) -> dict[str, Any]:
    """The comparison's scenarios and results in id order: any ordering of the same scenarios is one report
    (one fingerprint, one render), its columns always in that order."""
    ordered = sorted(scenarios, key=lambda s: s.pk)
    return {"scenario_ids": [s.pk for s in ordered], "result_ids": [s.latest_result_id for s in ordered]}


def sweep_report_params(*, run: Any) -> dict[str, Any]:
    finished = run.finished_at.isoformat() if run.finished_at else None
    return {"sweep_id": run.pk, "status": run.status, "finished_at": finished, "chunks_done": run.chunks_done}


def report_publish(*, report_id: int) -> bool:
    """Publish the render task of a report (again: planner.recovery), stamping queued_at; False when the broker
    refused it."""
    Report.objects.filter(pk=report_id).update(queued_at=timezone.now())
    return _enqueue(report_id)


def _enqueue(report_id: int) -> bool:
    """Publish the render task on the reports queue; False when the broker refused it."""
    try:
        queueing.publish(queueing.REPORT_RENDER, report_id, queue=queueing.report_queue())
    except Exception:  # kombu raises transport-specific errors: any failure means the task is not queued
        logger.exception("report %s: could not queue it", report_id)
        return False
    return True


def _check_pending_limit(owner: AbstractBaseUser) -> None:
    """ReportRefused when the user already has the most reports waiting or rendering on workers. Called inside
    the creating transaction after the user's row is locked, so two racing requests count each other."""
    from django.conf import settings

    list(get_user_model().objects.select_for_update().filter(pk=owner.pk).values_list("pk", flat=True))
    limit = int(getattr(settings, "REPORT_MAX_PENDING_PER_USER", MAX_PENDING_PER_USER_DEFAULT))
    pending = Report.objects.filter(
        owner=owner,
        status__in=(ReportStatus.PENDING, ReportStatus.RUNNING),
        rendered_inline=False,
        automatic=False,
    ).count()
    if pending >= limit:
        raise ReportRefused(
            f"You already have {pending} report{'s' if pending != 1 else ''} being prepared (the limit is "
            f"{limit}); wait for one to be ready, then ask again."
        )


def report_request(*, owner: AbstractBaseUser, kind: str, params: dict[str, Any], title: str) -> Report:
    """The report for these figures: an existing ready or in-progress one, else a new one, rendered now when
    this kind renders within DIRECT_RENDER_MAX_MS, otherwise queued for a worker."""
    fingerprint = report_fingerprint(kind=kind, params=params)
    existing = (
        Report.objects.filter(owner=owner, fingerprint=fingerprint)
        .exclude(status=ReportStatus.FAILED)
        .defer("pdf")
        .first()
    )
    if existing is not None:
        return existing
    full = retention.report_storage_problem(owner)
    if full:
        raise ReportRefused(full)
    render_now = expected_render_ms(kind=kind) <= DIRECT_RENDER_MAX_MS
    if not render_now:
        try:
            queueing.broker_check()
        except queueing.BrokerDown as exc:
            raise ReportQueueUnavailable(QUEUE_UNAVAILABLE_MESSAGE) from exc
    queued: list[bool] = []
    with transaction.atomic():
        if not render_now:
            _check_pending_limit(owner)
        report = Report.objects.create(
            owner=owner,
            kind=kind,
            params=params,
            fingerprint=fingerprint,
            title=title[:300],
            rendered_inline=render_now,
            queued_at=None if render_now else timezone.now(),
        )
        if not render_now:
            transaction.on_commit(lambda: queued.append(_enqueue(report.pk)))
    if queued == [False]:  # committed, then the broker refused the task: keep no row that never renders
        Report.objects.filter(pk=report.pk, status=ReportStatus.PENDING).delete()
        raise ReportQueueUnavailable(QUEUE_UNAVAILABLE_MESSAGE)
    if render_now:
        report_render(report_id=report.pk)
        report.refresh_from_db()
    return report


#: Automatic renders one user may have waiting at once (settings.REPORT_PRERENDER_MAX_PENDING_PER_USER; 0: off).
PRERENDER_MAX_PENDING_PER_USER_DEFAULT = 1
#: A page visit marks its figures as handled for this long, so later visits cost no query.
PRERENDER_MARK_TTL_S = 24 * 3600
#: After the broker did not answer, automatic renders pause this long (a visit then costs nothing extra).
PRERENDER_PAUSE_S = 30
PRERENDER_PAUSE_KEY = "reports:prerender:paused"


def _prerender_limit() -> int:
    from django.conf import settings

    return int(
        getattr(settings, "REPORT_PRERENDER_MAX_PENDING_PER_USER", PRERENDER_MAX_PENDING_PER_USER_DEFAULT)
    )


def report_prerender(
    *, owner: AbstractBaseUser, kind: str, params: dict[str, Any], title: str
) -> Report | None:
    """Start rendering these figures' PDF on a worker before anyone asks; the new report, or None when there
    is nothing to do or it cannot be done now. Skipped when a report of the same figures exists (ready, in
    progress, or failed: a failure is retried by the user's click, not on every visit), when the user already
    has REPORT_PRERENDER_MAX_PENDING_PER_USER automatic renders waiting or stores more than
    USER_REPORT_STORAGE_MB of PDFs, and for PRERENDER_PAUSE_S after the
    broker did not answer. Never raises: the page that calls it must not fail for it."""
    try:
        return _prerender(owner=owner, kind=kind, params=params, title=title)
    except Exception:  # the app's own optional work: log it, never break the page that asked
        logger.exception("automatic report render skipped")
        return None


def _prerender(*, owner: AbstractBaseUser, kind: str, params: dict[str, Any], title: str) -> Report | None:
    limit = _prerender_limit()
    if limit <= 0 or cache.get(PRERENDER_PAUSE_KEY):
        return None
    fingerprint = report_fingerprint(kind=kind, params=params)
    mark = f"reports:prerender:{owner.pk}:{fingerprint}"
    if not cache.add(mark, 1, PRERENDER_MARK_TTL_S):  # handled by an earlier visit (or the cache is down)
        return None
    if Report.objects.filter(owner=owner, fingerprint=fingerprint).exists():
        return None
    if retention.report_storage_problem(owner):  # over USER_REPORT_STORAGE_MB: a later visit tries again
        cache.delete(mark)
        return None
    try:
        queueing.broker_check()
    except queueing.BrokerDown:
        cache.set(PRERENDER_PAUSE_KEY, 1, PRERENDER_PAUSE_S)
        cache.delete(mark)
        return None
    with transaction.atomic():
        list(get_user_model().objects.select_for_update().filter(pk=owner.pk).values_list("pk", flat=True))
        waiting = Report.objects.filter(
            owner=owner, automatic=True, status__in=(ReportStatus.PENDING, ReportStatus.RUNNING)
        ).count()
        if waiting >= limit:
            cache.delete(mark)  # a later visit tries again
            return None
        report = Report.objects.create(
            owner=owner,
            kind=kind,
            params=params,
            fingerprint=fingerprint,
            title=title[:300],
            automatic=True,
            queued_at=timezone.now(),
        )
        transaction.on_commit(lambda: _publish_or_forget(report.pk, mark))
    return report


def _publish_or_forget(report_id: int, mark: str) -> None:
    """Publish an automatic render; when the broker refuses it, delete its row (no report that never renders)
    and pause automatic renders a while."""
    if _enqueue(report_id):
        return
    Report.objects.filter(pk=report_id, status=ReportStatus.PENDING).delete()
    cache.set(PRERENDER_PAUSE_KEY, 1, PRERENDER_PAUSE_S)
    cache.delete(mark)


def report_overdue(report: Report) -> bool:
    """Waiting or rendering for longer than a render may take (its time limit and a minute): its worker or its
    message was probably lost."""
    since = report.started_at or report.created_at
    return report.is_active and since < timezone.now() - timedelta(seconds=claim_stale_s())


def report_retry(*, report: Report) -> Report:
    """Ask again for a failed report, or one overdue (which is failed first, with the reason): a new row, so
    the failure stays on record. A report still within its time limit is returned as it is."""
    if report.is_active:
        if not report_overdue(report):
            return report
        Report.objects.filter(pk=report.pk, status__in=(ReportStatus.PENDING, ReportStatus.RUNNING)).update(
            status=ReportStatus.FAILED,
            error=f"It did not finish within its time limit ({REPORT_TIME_LIMIT_S} s); its worker stopped "
            "or its task was lost.",
            finished_at=timezone.now(),
        )
    return report_request(owner=report.owner, kind=report.kind, params=report.params, title=report.title)


def _claim(report_id: int) -> bool:
    return background.claim(Report.objects.filter(pk=report_id), now=timezone.now(), stale_s=claim_stale_s())


def _scenarios(report: Report, ids: list[int]) -> list[Scenario]:
    found = {
        s.pk: s
        for s in Scenario.objects.filter(owner=report.owner, pk__in=ids).select_related(
            *planner_selectors.SCENARIO_RELATED, "latest_result", "owner"
        )
    }
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise LookupError(f"scenario {missing[0]} no longer exists")
    return [found[pk] for pk in ids]


def _render(report: Report) -> pdf.RenderedPdf:
    params = report.params
    if report.kind == ReportKind.SCENARIO:
        (scenario,) = _scenarios(report, [params["scenario_id"]])
        return pdf.scenario_pdf(
            scenario=scenario, share_url=params["share_url"], result_id=params.get("result_id")
        )
    if report.kind == ReportKind.COMPARISON:
        return pdf.comparison_pdf(scenarios=_scenarios(report, params["scenario_ids"]))
    from planner.sweeps.models import SweepRun

    run = SweepRun.objects.filter(owner=report.owner, pk=params["sweep_id"]).first()
    if run is None:
        raise LookupError(f"sweep {params['sweep_id']} no longer exists")
    return pdf.sweep_pdf(run=run)


def report_render(*, report_id: int) -> bool:
    """Claim and render one report; False when another delivery has it (or it is finished)."""
    if not _claim(report_id):
        return False
    report = Report.objects.get(pk=report_id)
    started = time.perf_counter()
    try:
        rendered = _render(report)
    except Exception as error:  # a report that cannot render is a failed row with the reason, never lost
        logger.exception("report %s failed", report_id)
        Report.objects.filter(pk=report_id).update(
            status=ReportStatus.FAILED,
            error=f"{type(error).__name__}: {error}"[:2000],
            finished_at=timezone.now(),
        )
        return True
    Report.objects.filter(pk=report_id, status=ReportStatus.RUNNING).update(
        status=ReportStatus.DONE,
        pdf=rendered.content,
        render_ms=(time.perf_counter() - started) * 1000,
        pages=rendered.pages,
        filename=rendered.filename,
        error="",
        finished_at=timezone.now(),
    )
    return True
