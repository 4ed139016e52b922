"""JSON API routes (mounted at /api/): estimate, scenarios, sweeps, fleets, catalog, token, OpenAPI schema and docs."""

from django.urls import include, path

from planner.api import converters, docs, fleets, scenarios, sweeps  # noqa: F401 (converters registers <id:...>)
from planner.api.catalog import router as catalog_router
from planner.api.estimate import EstimateView
from planner.api.token import TokenView

urlpatterns = [
    path("estimate/", EstimateView.as_view(), name="api_estimate"),
    path("scenarios/", scenarios.ScenarioListView.as_view(), name="api_scenarios"),
    path("scenarios/<id:pk>/", scenarios.ScenarioDetailView.as_view(), name="api_scenario_detail"),
    path("scenarios/<id:pk>/results/", scenarios.ScenarioResultsView.as_view(), name="api_scenario_results"),
    path(
        "scenarios/<id:pk>/results/<id:result_id>/",
        scenarios.ScenarioResultView.as_view(),
        name="api_scenario_result",
    ),
    path(
        "scenarios/<id:pk>/evaluate/", scenarios.ScenarioEvaluateView.as_view(), name="api_scenario_evaluate"
    ),
    path("sweeps/", sweeps.SweepListView.as_view(), name="api_sweeps"),
    path("sweeps/<id:pk>/", sweeps.SweepDetailView.as_view(), name="api_sweep_detail"),
    path("sweeps/<id:pk>/cancel/", sweeps.SweepCancelView.as_view(), name="api_sweep_cancel"),
    path("sweeps/<id:pk>/results/", sweeps.SweepResultsView.as_view(), name="api_sweep_results"),
    path("fleet/", fleets.FleetPlanView.as_view(), name="api_fleet_plan"),
    path("fleets/", fleets.FleetListView.as_view(), name="api_fleets"),
    path("fleets/<id:pk>/", fleets.FleetDetailView.as_view(), name="api_fleet_detail"),
    path("fleets/<id:pk>/solve/", fleets.FleetSolveView.as_view(), name="api_fleet_solve"),
    path("fleets/<id:pk>/result/", fleets.FleetResultView.as_view(), name="api_fleet_result"),
    path("token/", TokenView.as_view(), name="api_token"),
    path("schema/", docs.SchemaView.as_view(), name="api_schema"),
    path("docs/", docs.ApiDocsView.as_view(), name="api_docs"),
    path("catalog/", include(catalog_router.urls)),
]
