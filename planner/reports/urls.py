"""Export URLs under /reports/: PDFs (direct or via a "preparing…" page) and streamed CSVs."""

from django.urls import path

from planner.reports import views

app_name = "reports"

urlpatterns = [
    path("scenarios/<int:pk>/report.pdf", views.scenario_pdf, name="scenario_pdf"),
    path("scenarios/<int:pk>/results.csv", views.scenario_metrics_csv, name="scenario_metrics_csv"),
    path("scenarios/<int:pk>/bill-of-materials.csv", views.scenario_bom_csv, name="scenario_bom_csv"),
    path("scenarios/<int:pk>/tco-by-year.csv", views.scenario_tco_csv, name="scenario_tco_csv"),
    path(
        "scenarios/<int:pk>/sensitivity.csv", views.scenario_sensitivity_csv, name="scenario_sensitivity_csv"
    ),
    path("scenarios/<int:pk>/sizing.csv", views.scenario_sizing_csv, name="scenario_sizing_csv"),
    path("compare/report.pdf", views.comparison_pdf, name="comparison_pdf"),
    path("compare/comparison.csv", views.comparison_csv, name="comparison_csv"),
    path("sweeps/<int:pk>/report.pdf", views.sweep_pdf, name="sweep_pdf"),
    path("sweeps/<int:pk>/configurations.csv", views.sweep_csv, name="sweep_csv"),
    path("catalog/<str:table>.csv", views.catalog_csv, name="catalog_csv"),
    path("<int:pk>/", views.report_detail, name="report_detail"),
    path("<int:pk>/status/", views.report_status, name="report_status"),
    path("<int:pk>/download/", views.report_download, name="report_download"),
    path("<int:pk>/retry/", views.report_retry, name="report_retry"),
]
