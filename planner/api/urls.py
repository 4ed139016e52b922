"""JSON API routes (mounted at /api/)."""

urlpatterns: list = []
