"""The "Catalog editor" group: view, add, change and delete on every catalog table (admin, CSV import, API).

Permissions are created after migrations by a signal, so on a fresh database they are made here first."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Catalog editor"
MODELS = ("gpu", "cpu", "interconnect", "switch", "system", "cooling", "economicsfact")
ACTIONS = ("view", "add", "change", "delete")


def add_group(apps, schema_editor):
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    codenames = [f"{action}_{model}" for model in MODELS for action in ACTIONS]
    group.permissions.add(*Permission.objects.filter(content_type__app_label="catalog", codename__in=codenames))


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(add_group, remove_group)]
