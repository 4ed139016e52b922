from django.apps import AppConfig


class FleetsConfig(AppConfig):
    """Saved fleet plans: many workloads on mixed GPU pools over time, planned by planner.engine.fleet."""

    name = "planner.fleets"
    label = "fleets"
    verbose_name = "Fleet plans"
    default_auto_field = "django.db.models.BigAutoField"
