"""Fleet plan pages: /fleets/ (list), /fleets/new/, /fleets/<id>/ (results), edit, solve, status, exports."""

from django.urls import path

from planner.fleets import views

app_name = "fleets"

urlpatterns = [
    path("", views.plan_list, name="list"),
    path("new/", views.plan_create, name="create"),
    path("compare/", views.plan_compare, name="compare"),
    path("<int:pk>/", views.plan_detail, name="detail"),
    path("<int:pk>/edit/", views.plan_edit, name="edit"),
    path("<int:pk>/solve/", views.plan_solve, name="solve"),
    path("<int:pk>/status/", views.plan_status, name="status"),
    path("<int:pk>/delete/", views.plan_delete, name="delete"),
    path("<int:pk>/export/<str:table>.csv", views.plan_csv, name="csv"),
    path("<int:pk>/report.pdf", views.plan_pdf, name="pdf"),
    path("<int:pk>/share/", views.share_create, name="share_create"),
    path("<int:pk>/share/revoke/", views.share_revoke, name="share_revoke"),
    path("shared/<str:token>/", views.shared, name="shared"),
]
