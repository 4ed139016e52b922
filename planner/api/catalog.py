"""Catalog API: every signed-in user reads; writes need the model's add/change/delete permission (the
"Catalog editor" group, or a superuser), not staff status. One serializer and one viewset per catalog model, built
by a small factory; rows are looked up by their string id (`/api/catalog/gpus/nvidia_h100_sxm5_80gb/`).

Writes run the model's own `full_clean()` (field validators and cross-field range checks such as price low <=
price <= price high), so the API accepts exactly what the admin accepts, and mark the row `locally_edited` so
`load_catalog` leaves it alone.
"""

from __future__ import annotations

import copy
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from django.db.models.deletion import ProtectedError
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.exceptions import APIException
from rest_framework.routers import DefaultRouter

from catalog.tables import CATALOG_TABLES
from catalog.validators import CATALOG_ID_RE
from planner.api import schemas
from planner.api.base import ApiViewMixin
from planner.api.errors import NON_FIELD_PATH

READ_ONLY_FIELDS = ("locally_edited", "updated_at")


class InUse(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "This row is used by saved scenarios and cannot be deleted."
    default_code = "in_use"


class CatalogModelPermissions(permissions.DjangoModelPermissions):
    """Reads for any signed-in user; POST needs `add`, PUT/PATCH `change`, DELETE `delete` on the model."""

    message = "Changing the catalog needs the catalog permissions (the “Catalog editor” group)."


class CatalogRelatedField(serializers.PrimaryKeyRelatedField):
    """A reference to another catalog row by its id. An id holding a NUL character names no row: it is refused
    here, before the lookup (PostgreSQL cannot compare text with NUL and would answer 500)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and "\x00" in data:
            self.fail("does_not_exist", pk_value=data.replace("\x00", "\\x00")[:40])
        return super().to_internal_value(data)


class CatalogSerializer(serializers.ModelSerializer):
    """Validates a write with the model's `full_clean()`; the id of an existing row cannot change."""

    serializer_related_field = CatalogRelatedField

    def validate_id(self, value: str) -> str:
        if self.instance is not None and value != self.instance.pk:
            raise serializers.ValidationError(
                f"The id of an existing row cannot change (it is {self.instance.pk!r}); create a new row instead."
            )
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        model = self.Meta.model
        row = copy.copy(self.instance) if self.instance is not None else model()
        for name, value in attrs.items():
            setattr(row, name, value)
        try:
            row.full_clean(validate_unique=False)  # uniqueness: the serializer's UniqueValidator on id
        except DjangoValidationError as exc:
            raise serializers.ValidationError(
                {
                    NON_FIELD_PATH if key == NON_FIELD_ERRORS else key: msgs
                    for key, msgs in exc.message_dict.items()
                }
            ) from exc
        return attrs


def catalog_serializer(model: type[models.Model]) -> type[CatalogSerializer]:
    meta = type("Meta", (), {"model": model, "fields": "__all__", "read_only_fields": READ_ONLY_FIELDS})
    return type(f"{model.__name__}Serializer", (CatalogSerializer,), {"Meta": meta, "__module__": __name__})


class CatalogViewSet(ApiViewMixin, viewsets.ModelViewSet):
    permission_classes = [permissions.IsAuthenticated, CatalogModelPermissions]
    lookup_value_regex = CATALOG_ID_RE.pattern.strip("^$")

    def perform_create(self, serializer: CatalogSerializer) -> None:
        serializer.save(locally_edited=True)

    def perform_update(self, serializer: CatalogSerializer) -> None:
        serializer.save(locally_edited=True)

    def perform_destroy(self, instance: models.Model) -> None:
        try:
            instance.delete()
        except ProtectedError as exc:
            raise InUse(
                f"{instance} is used by {len(exc.protected_objects)} saved scenario(s) and cannot be deleted."
            ) from exc


def _documented(viewset: type[CatalogViewSet], label: str) -> type[CatalogViewSet]:
    reads = schemas.error_responses(401, 403, 404)
    writes = schemas.error_responses(400, 401, 403, 404, 413, 415)
    serializer = viewset.serializer_class
    return extend_schema_view(
        list=extend_schema(summary=f"List {label}", responses={200: serializer(many=True), **reads}),
        retrieve=extend_schema(summary=f"One {label} row by id", responses={200: serializer, **reads}),
        create=extend_schema(
            summary=f"Add a {label} row (catalog editors)", responses={201: serializer, **writes}
        ),
        update=extend_schema(
            summary=f"Replace a {label} row (catalog editors)", responses={200: serializer, **writes}
        ),
        partial_update=extend_schema(
            summary=f"Change fields of a {label} row (catalog editors)", responses={200: serializer, **writes}
        ),
        destroy=extend_schema(
            summary=f"Delete a {label} row (catalog editors)",
            responses={
                204: OpenApiResponse(description="Deleted."),
                409: OpenApiResponse(schemas.DETAIL_SCHEMA, description="Used by saved scenarios."),
                **reads,
            },
        ),
    )(viewset)


def catalog_viewset(prefix: str, model: type[models.Model]) -> type[CatalogViewSet]:
    attrs = {
        "queryset": model.objects.all(),
        "serializer_class": catalog_serializer(model),
        "__module__": __name__,
        "__doc__": f"Catalog {model._meta.verbose_name_plural}: read for signed-in users, write for catalog editors.",
    }
    viewset = type(f"{model.__name__}ViewSet", (CatalogViewSet,), attrs)
    return extend_schema(tags=["catalog"])(_documented(viewset, str(model._meta.verbose_name)))


router = DefaultRouter()
for _prefix, _model in CATALOG_TABLES.items():
    router.register(_prefix, catalog_viewset(_prefix, _model), basename=f"api-catalog-{_prefix}")
