"""Admin for planning data: staff can inspect scenarios, their stored results and share links."""

from django.contrib import admin

from planner.accounts.forms import AdminLockoutAuthenticationForm
from planner.models import Scenario, ScenarioResult, ShareLink

# The admin's sign-in goes through the same lockout as the site's (planner.accounts.lockout).
admin.site.login_form = AdminLockoutAuthenticationForm


class ScenarioResultInline(admin.TabularInline):
    model = ScenarioResult
    fields = ("created_at", "engine_version", "catalog_hash", "elapsed_ms")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "workload_kind", "gpu", "nodes", "gpus_per_node", "updated_at")
    list_filter = ("workload_kind", "parallelism_mode", "facility")
    search_fields = ("name", "owner__username", "model_preset")
    list_select_related = ("owner", "gpu")
    raw_id_fields = ("owner", "latest_result")
    readonly_fields = ("created_at", "updated_at")
    inlines = [ScenarioResultInline]


@admin.register(ScenarioResult)
class ScenarioResultAdmin(admin.ModelAdmin):
    list_display = ("scenario", "created_at", "engine_version", "elapsed_ms")
    list_select_related = ("scenario",)
    search_fields = ("scenario__name",)
    readonly_fields = (
        "scenario",
        "created_at",
        "engine_version",
        "input_payload",
        "output",
        "search_summary",
        "summary",
        "catalog_snapshot",
        "catalog_hash",
        "elapsed_ms",
    )


@admin.register(ShareLink)
class ShareLinkAdmin(admin.ModelAdmin):
    list_display = ("scenario", "created_at", "revoked_at")
    list_select_related = ("scenario",)
    readonly_fields = ("token", "created_at")
