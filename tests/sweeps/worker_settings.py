"""Settings of the Celery workers that tests/sweeps/test_kill_worker.py starts: the test settings plus a short
Redis visibility timeout, swept for every second, so the message a killed worker held is redelivered within
seconds instead of an hour (kombu's Redis transport: visibility_timeout, unacked_restore_interval/_throttle)."""

import os

from planner.settings_test import *  # noqa: F403

CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("SWEEP_TEST_VISIBILITY_TIMEOUT_S", "3")),
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
}
