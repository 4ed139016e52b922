from django.urls import path

from catalog import views

app_name = "catalog"

urlpatterns = [
    path("gpus/", views.gpu_list, name="gpu_list"),
    path("gpus/compare/", views.gpu_compare, name="gpu_compare"),
]
