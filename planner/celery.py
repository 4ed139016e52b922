"""The Celery app. Tasks import it directly (planner/__init__.py stays empty so the engine imports without Django)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.settings")

app = Celery("planner")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["planner", "planner.fleets", "catalog"])
