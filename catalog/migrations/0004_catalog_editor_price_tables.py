"""The "Catalog editor" group also edits the price tables added in 0003 (part prices, cloud prices)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Catalog editor"
MODELS = ("partprice", "cloudprice")
ACTIONS = ("view", "add", "change", "delete")


def add_permissions(apps, schema_editor):
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    codenames = [f"{action}_{model}" for model in MODELS for action in ACTIONS]
    group.permissions.add(*Permission.objects.filter(content_type__app_label="catalog", codename__in=codenames))


def remove_permissions(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    codenames = [f"{action}_{model}" for model in MODELS for action in ACTIONS]
    for group in Group.objects.filter(name=GROUP):
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="catalog", codename__in=codenames)
        )


class Migration(migrations.Migration):
    dependencies = [("catalog", "0003_prices_and_cloud_prices")]

    operations = [migrations.RunPython(add_permissions, remove_permissions)]
