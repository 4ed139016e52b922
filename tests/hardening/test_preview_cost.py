"""One live preview may cost only so much: a custom model of 100,000 layers or a cluster of more than 2^20 GPUs
is refused with a message on the field concerned (before: 1.8 s and ~800 MB per preview), and nothing runs."""

from __future__ import annotations

import pytest

from planner import services
from tests.planner.conftest import catalog, form_data  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

CUSTOM_MODEL = {
    "model_preset": "custom",
    "custom_model_hidden": 8192,
    "custom_model_heads": 64,
    "custom_model_kv_heads": 8,
    "custom_model_ffn_hidden": 28672,
    "custom_model_ffn_type": "swiglu",
    "custom_model_vocab": 128256,
    "custom_model_seq_len": 8192,
}


def _preview(client, **fields):
    return client.post("/scenarios/new/preview/", form_data(**fields)).json()


def test_the_attack_from_the_issue_is_refused_on_both_fields(alice_client, catalog, monkeypatch):  # noqa: F811
    calls = []
    monkeypatch.setattr(services, "scenario_evaluation_run", lambda **kw: calls.append(kw))
    body = _preview(alice_client, **CUSTOM_MODEL, custom_model_layers=100_000, nodes=72_930, gpus_per_node=16)
    assert body["ok"] is False and calls == []
    assert "up to 1,024 layers" in body["errors"]["custom_model_layers"][0]
    assert "up to 1,048,576 GPUs" in body["errors"]["nodes"][0]


def test_a_large_but_real_model_still_previews(alice_client, catalog):  # noqa: F811
    body = _preview(alice_client, **CUSTOM_MODEL, custom_model_layers=126, nodes=64)
    assert body["ok"] is True, body["errors"]
