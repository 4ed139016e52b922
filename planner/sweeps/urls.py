"""Sweep pages: /sweeps/ (list), /sweeps/new/<scenario>/ (form), /sweeps/<id>/ (progress and results)."""

from django.urls import path

from planner.sweeps import views

app_name = "sweeps"

urlpatterns = [
    path("", views.sweep_list, name="list"),
    path("new/<int:scenario_pk>/", views.sweep_create, name="create"),
    path("serving/<int:scenario_pk>/", views.serving_sweep, name="serving"),
    path("<int:pk>/", views.sweep_detail, name="detail"),
    path("<int:pk>/status/", views.sweep_status, name="status"),
    path("<int:pk>/cancel/", views.sweep_cancel, name="cancel"),
    path("<int:pk>/resume/", views.sweep_resume, name="resume"),
    path("<int:pk>/open/", views.sweep_open, name="open"),
]
