"""Root URL configuration: admin, accounts, catalog pages and planning pages."""

from django.contrib import admin
from django.urls import include, path

from planner import views, views_fit

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("accuracy/", views.engine_accuracy, name="engine_accuracy"),
    path("hpc/", views.hpc_presets, name="hpc_presets"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/", include("planner.accounts.urls")),
    path("scenarios/", views.scenario_list, name="scenario_list"),
    path("scenarios/new/", views.scenario_create, name="scenario_create"),
    path("scenarios/new/preview/", views.scenario_preview_new, name="scenario_preview_new"),
    path("scenarios/compare/", views.scenario_compare, name="scenario_compare"),
    path("scenarios/<int:pk>/", views.scenario_detail, name="scenario_detail"),
    path("scenarios/<int:pk>/results/<int:result_id>/", views.scenario_detail, name="scenario_result"),
    path("scenarios/<int:pk>/edit/", views.scenario_edit, name="scenario_edit"),
    path("scenarios/<int:pk>/preview/", views.scenario_preview, name="scenario_preview"),
    path("scenarios/<int:pk>/evaluate/", views.scenario_reevaluate, name="scenario_reevaluate"),
    path("scenarios/<int:pk>/size/", views.scenario_size, name="scenario_size"),
    path("scenarios/<int:pk>/compare-gpus/", views.scenario_compare_gpus, name="scenario_compare_gpus"),
    path("scenarios/<int:pk>/fit/", views_fit.scenario_fit, name="scenario_fit"),
    path("fit/", views_fit.fit_pick, name="fit_pick"),
    path("scenarios/<int:pk>/clone/", views.scenario_clone, name="scenario_clone"),
    path("scenarios/<int:pk>/delete/", views.scenario_delete, name="scenario_delete"),
    path("scenarios/<int:pk>/share/", views.share_create, name="share_create"),
    path("scenarios/<int:pk>/share/<int:link_id>/revoke/", views.share_revoke, name="share_revoke"),
    path("shared/<str:token>/", views.share_view, name="share_view"),
    path("sweeps/", include("planner.sweeps.urls")),
    path("fleets/", include("planner.fleets.urls")),
    path("reports/", include("planner.reports.urls")),
    path("api/", include("planner.api.urls")),
    path("catalog/", include("catalog.urls")),
    path("admin/", admin.site.urls),
]
