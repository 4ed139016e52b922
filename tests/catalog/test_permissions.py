"""Catalog writes need model permissions, not staff status alone: in the admin (forms and CSV import) and in
the API. The "Catalog editor" group (made by a migration) has them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from catalog.models import Gpu
from tests.api.conftest import token_client
from tests.catalog.test_import_export import confirm, edit_csv, export_csv, snapshot, upload

pytestmark = pytest.mark.django_db

H100 = "nvidia_h100_sxm5_80gb"
GROUP = "Catalog editor"


@pytest.fixture
def bare_staff(django_user_model):
    """Staff (may open the admin) with no model permission at all."""
    return django_user_model.objects.create_user(
        "clerk", "clerk@example.com", "clerk-password-1", is_staff=True
    )


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user(
        "editor", "ed@example.com", "editor-password-1", is_staff=True
    )
    user.groups.add(Group.objects.get(name=GROUP))
    return user


def test_the_migration_made_the_catalog_editor_group():
    codenames = set(Group.objects.get(name=GROUP).permissions.values_list("codename", flat=True))
    models = (
        "gpu",
        "cpu",
        "interconnect",
        "switch",
        "system",
        "cooling",
        "economicsfact",
        "partprice",
        "cloudprice",
    )
    assert codenames == {f"{a}_{m}" for m in models for a in ("view", "add", "change", "delete")}


def test_staff_without_permissions_cannot_import_a_csv(client, bare_staff, catalog):
    client.force_login(bare_staff)
    before = snapshot(Gpu)
    assert client.get(reverse("admin:catalog_gpu_import")).status_code == 403
    response = upload(client, Gpu, edit_csv(export_csv(Gpu), H100, tdp_w="1"))
    assert response.status_code == 403
    assert client.post(reverse("admin:catalog_gpu_process_import"), {}).status_code == 403
    assert client.get(reverse("admin:catalog_gpu_change", args=[H100])).status_code == 403
    assert snapshot(Gpu) == before


def test_staff_without_permissions_cannot_write_through_the_api(bare_staff, catalog):
    api = token_client(bare_staff)
    url = f"/api/catalog/gpus/{H100}/"
    assert api.get(url).status_code == 200
    assert api.patch(url, {"tdp_w": 1}, format="json").status_code == 403
    assert api.delete(url).status_code == 403
    body = {**api.get(url).json(), "id": "made_up_gpu_80gb"}
    assert api.post("/api/catalog/gpus/", body, format="json").status_code == 403
    assert Gpu.objects.get(pk=H100).tdp_w != 1 and not Gpu.objects.filter(pk="made_up_gpu_80gb").exists()


def test_a_catalog_editor_imports_a_csv(client, editor, catalog):
    client.force_login(editor)
    preview = upload(client, Gpu, edit_csv(export_csv(Gpu), H100, tdp_w="650"))
    assert preview.status_code == 200 and "confirm_form" in preview.context
    confirm(client, Gpu, preview)
    assert Gpu.objects.get(pk=H100).tdp_w == 650


def test_a_catalog_editor_writes_through_the_api(editor, catalog):
    api = token_client(editor)
    response = api.patch(f"/api/catalog/gpus/{H100}/", {"tdp_w": 650}, format="json")
    assert response.status_code == 200 and Gpu.objects.get(pk=H100).tdp_w == 650


def test_a_change_only_editor_may_not_import(client, django_user_model, catalog):
    """An import can add rows: "change" alone is not enough."""
    user = django_user_model.objects.create_user("half", "h@example.com", "half-password-1", is_staff=True)
    from django.contrib.auth.models import Permission

    user.user_permissions.add(Permission.objects.get(codename="change_gpu"))
    client.force_login(user)
    assert client.get(reverse("admin:catalog_gpu_import")).status_code == 403
    assert client.get(reverse("admin:catalog_gpu_change", args=[H100])).status_code == 200


def test_admin_exports_escape_spreadsheet_formulae(staff_client, catalog):
    Gpu.objects.filter(pk=H100).update(notes='=HYPERLINK("http://evil.example","x")')
    url = reverse("admin:catalog_gpu_export")
    form = staff_client.get(url).context["form"]
    csv_index = next(i for i, (_, label) in enumerate(form.fields["format"].choices) if label == "csv")
    data = {name: "on" for name, field in form.fields.items() if getattr(field, "is_selectable_field", False)}
    response = staff_client.post(url, {**data, "format": str(csv_index), "export_items": [H100]})
    text = response.content.decode()
    assert response.status_code == 200 and "evil.example" in text
    assert "=HYPERLINK" not in text
