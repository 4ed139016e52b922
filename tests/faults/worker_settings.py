"""Settings of the workers and the beat that the fault tests start: the kill test's (Redis hands a dead
worker's message back within seconds) with claims that go stale within seconds and a recovery pass every
RECOVERY_INTERVAL_S seconds, so lost work heals while the test waits."""

import os

from tests.sweeps.worker_settings import *  # noqa: F403

REPORT_CLAIM_STALE_S = float(os.environ.get("FAULT_CLAIM_STALE_S", "4"))
SWEEP_CLAIM_STALE_S = float(os.environ.get("FAULT_CLAIM_STALE_S", "4"))
SWEEP_STALLED_S = float(os.environ.get("FAULT_STALLED_S", "6"))
CELERY_BEAT_SCHEDULE_FILENAME = os.environ.get("FAULT_BEAT_SCHEDULE", "/tmp/planner-fault-beat")
