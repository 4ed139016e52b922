from django.apps import AppConfig


class PlannerConfig(AppConfig):
    name = "planner"
    verbose_name = "Planning"
    default_auto_field = "django.db.models.BigAutoField"
