"""CSV import/export resources (django-import-export) for every catalog model.

An import is all or nothing: it runs in one transaction, every row goes through the model's `full_clean()`
(`clean_model_instances`), and any bad row rolls the whole file back; the result names each bad row and field.
Rows that match the database are skipped, so exporting and re-importing a table changes nothing. Imported rows
that do change are marked `locally_edited`, like admin edits, so `load_catalog` will not overwrite them.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from import_export import fields, resources, widgets

from catalog.models import Cooling, Cpu, EconomicsFact, Gpu, Interconnect, Switch, System
from catalog.price_models import CloudPrice, PartPrice


class CatalogResource(resources.ModelResource):
    """Shared import rules: match rows by id, validate with the model, skip unchanged rows, one transaction."""

    class Meta:
        import_id_fields = ("id",)
        exclude = ("locally_edited", "updated_at")
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True
        use_transactions = True

    def import_data(
        self, dataset: Any, dry_run: bool = False, raise_errors: bool = False, **kwargs: Any
    ) -> Any:
        """Always transactional, and roll back on validation errors too, so a bad file saves nothing."""
        kwargs["use_transactions"] = True
        kwargs["rollback_on_validation_errors"] = True
        return super().import_data(dataset, dry_run=dry_run, raise_errors=raise_errors, **kwargs)

    def skip_row(self, instance: Any, original: Any, row: Any, import_validation_errors: Any = None) -> bool:
        skip = super().skip_row(instance, original, row, import_validation_errors)
        if not skip:
            instance._import_changed_fields = [
                field.column_name
                for field in self.get_import_fields()
                if original is None or field.get_value(instance) != field.get_value(original)
            ]
        return skip

    def before_save_instance(self, instance: Any, row: Any, **kwargs: Any) -> None:
        instance.locally_edited = True


class GpuResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = Gpu


class CpuResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = Cpu


class InterconnectResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = Interconnect


class SwitchResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = Switch


class GpuIdWidget(widgets.ForeignKeyWidget):
    """A GPU id cell; an unknown id is a field error naming the id, not a crash."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> Any:
        try:
            return super().clean(value, row, **kwargs)
        except ObjectDoesNotExist:
            raise ValueError(f"No catalog GPU with id {value!r}.") from None


class SystemResource(CatalogResource):
    gpu = fields.Field(attribute="gpu", column_name="gpu", widget=GpuIdWidget(Gpu))

    class Meta(CatalogResource.Meta):
        model = System


class CoolingResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = Cooling


class EconomicsFactResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = EconomicsFact


class PartPriceResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = PartPrice


class CloudPriceResource(CatalogResource):
    gpu = fields.Field(attribute="gpu", column_name="gpu", widget=GpuIdWidget(Gpu))

    class Meta(CatalogResource.Meta):
        model = CloudPrice


RESOURCES: dict[type, type[CatalogResource]] = {
    Gpu: GpuResource,
    Cpu: CpuResource,
    Interconnect: InterconnectResource,
    Switch: SwitchResource,
    System: SystemResource,
    Cooling: CoolingResource,
    EconomicsFact: EconomicsFactResource,
    PartPrice: PartPriceResource,
    CloudPrice: CloudPriceResource,
}
