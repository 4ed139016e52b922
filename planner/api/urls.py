"""JSON API routes (mounted at /api/): estimate, catalog, token, OpenAPI schema and docs."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from planner.api import docs
from planner.api.catalog import router as catalog_router
from planner.api.estimate import EstimateView
from planner.api.token import TokenView

urlpatterns = [
    path("estimate/", EstimateView.as_view(), name="api_estimate"),
    path("token/", TokenView.as_view(), name="api_token"),
    path("schema/", SpectacularAPIView.as_view(permission_classes=[]), name="api_schema"),
    path("docs/", docs.ApiDocsView.as_view(), name="api_docs"),
    path("catalog/", include(catalog_router.urls)),
]
