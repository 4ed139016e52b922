from django.urls import path

from catalog import views

app_name = "catalog"

urlpatterns = [
    path("gpus/", views.gpu_list, name="gpu_list"),
    path("gpus/compare/", views.gpu_compare, name="gpu_compare"),
    path("gpus/<str:gpu_id>/", views.gpu_detail, name="gpu_detail"),
    path("systems/", views.system_list, name="system_list"),
    path("cooling/", views.cooling_list, name="cooling_list"),
    path("economics/", views.economics_list, name="economics_list"),
]
