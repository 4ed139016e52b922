"""Scenario form building blocks: limits and catalog categories, catalog choice fields that label rows with
their key numbers and units, number-field helpers, and the form's fieldsets (which fields show together).

`planner.forms.scenario.ScenarioForm` uses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms

from catalog.models import Cooling, EconomicsFact, Gpu, Interconnect, Switch, System
from planner.reports import formatting as fmt

CUSTOM = "custom"
MAX_NODES = 100_000
MAX_GPUS_PER_NODE = 1_024
MAX_TOKENS_B = (
    1_000_000.0  # 10^15 tokens: far beyond any published run; catches unit slips (tokens vs billions)
)
#: Serving limits that catch unit slips (tokens for requests, ms for s), far beyond any published service:
#: 10 M tokens is the longest context window released (Llama 4 Scout, https://ai.meta.com/blog/llama-4-multimodal-intelligence/);
#: a million requests/s and 10^9 tokens/s are orders of magnitude above a whole hyperscaler fleet's published
#: serving load; a batch of a million requests per replica is beyond any server's running limit.
MAX_SEQUENCE_TOKENS = 10_000_000
MAX_REQUESTS_PER_S = 1_000_000.0
MAX_TOKENS_PER_S = 1_000_000_000.0
MAX_SERVING_BATCH = 1_000_000

ELECTRICITY_CATEGORY = "electricity price"
ELECTRICITY_UNIT = "USD/kWh"
COLOCATION_CATEGORY = "colocation"
COLOCATION_UNIT = "USD per kW per month"
GRID_CARBON_CATEGORY = "grid carbon"
SCALE_OUT_CATEGORY_PREFIX = "scale-out fabric"
COOLING_CATEGORY = "cooling technology"


def model_preset_choices() -> list[tuple[str, str]]:
    """The engine's model presets (name, label), then a custom shape."""
    from planner.engine.api import presets

    items = sorted(presets().items(), key=lambda kv: kv[1].get("label", kv[0]))
    return [(name, spec.get("label", name)) for name, spec in items] + [(CUSTOM, "Custom shape…")]


class GpuChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Gpu) -> str:
        memory = fmt.quantity(obj.memory_gb, "GB")
        bf16 = fmt.quantity(obj.dense_16bit_tflops, "TFLOPS")
        return f"{obj.vendor} {obj.model} — {memory}, {bf16} dense 16-bit"


class SystemChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: System) -> str:
        gpus = f"{obj.gpus} × {obj.gpu.model}" if obj.gpu_id and obj.gpus else obj.gpu_model_text
        return f"{obj.vendor} {obj.name} ({gpus})"


class NetworkChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Interconnect) -> str:
        return f"{obj.name} — {fmt.quantity(obj.port_rate_gbps, 'Gb/s')} per GPU port"


class SwitchChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Switch) -> str:
        return f"{obj.vendor} {obj.model} — {obj.ports} × {fmt.quantity(obj.port_speed_gbps, 'Gb/s')}"


class CoolingChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Cooling) -> str:
        if obj.pue_low is None and obj.pue_high is None:
            return f"{obj.name} (PUE not published)"
        if obj.pue_low == obj.pue_high or obj.pue_high is None:
            return f"{obj.name} — PUE {fmt.sig(obj.pue_low)}"
        return f"{obj.name} — PUE {fmt.sig(obj.pue_low)}–{fmt.sig(obj.pue_high)}"


class FactChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: EconomicsFact) -> str:
        return f"{obj.region}, {obj.period}: {fmt.sig(obj.value, 4)} {obj.unit}"


def int_field(
    label: str, help_text: str, *, min_value: int = 1, max_value: int | None = None, **kw: Any
) -> forms.IntegerField:
    """A whole-number field, at least 1 unless told otherwise."""
    return forms.IntegerField(
        label=label, help_text=help_text, min_value=min_value, max_value=max_value, **kw
    )


def float_field(
    label: str, help_text: str, *, min_value: float | None = 0.0, max_value: float | None = None, **kw: Any
) -> forms.FloatField:
    """A number field, at least 0 unless told otherwise."""
    return forms.FloatField(label=label, help_text=help_text, min_value=min_value, max_value=max_value, **kw)


@dataclass(frozen=True)
class Fieldset:
    key: str
    legend: str
    fields: tuple[str, ...]
    show_when: str = ""  # "field=value|value" evaluated by static/js/planner_form.js (and the template)


FIELDSETS: tuple[Fieldset, ...] = (
    Fieldset("about", "Scenario", ("name", "notes")),
    Fieldset(
        "cluster",
        "Cluster",
        (
            "gpu_source",
            "gpu",
            "system",
            "nodes",
            "gpus_per_node",
            "cpu",
            "gpu_power_limit_w",
            "gpu_power_limit_pct",
        ),
    ),
    Fieldset(
        "custom_gpu",
        "Custom GPU (datasheet numbers, dense)",
        (
            "custom_gpu_name",
            "custom_gpu_memory_gb",
            "custom_gpu_bandwidth_tbs",
            "custom_gpu_bf16_tflops",
            "custom_gpu_fp8_tflops",
            "custom_gpu_tdp_w",
            "custom_gpu_scaleup_gbs",
            "custom_gpu_price_usd",
        ),
        show_when="gpu_source=custom",
    ),
    Fieldset(
        "network",
        "Network, cooling and storage",
        (
            "network",
            "switch",
            "topology",
            "network_tiers",
            "oversubscription",
            "cooling",
            "pue",
            "storage_tb",
        ),
    ),
    Fieldset("workload", "Workload", ("workload_kind", "model_preset", "tokens_b", "precision", "optimizer")),
    Fieldset(
        "custom_model",
        "Custom model shape",
        (
            "custom_model_layers",
            "custom_model_hidden",
            "custom_model_heads",
            "custom_model_kv_heads",
            "custom_model_ffn_hidden",
            "custom_model_ffn_type",
            "custom_model_vocab",
            "custom_model_seq_len",
        ),
        show_when="model_preset=custom",
    ),
    Fieldset(
        "parallelism",
        "Parallelism",
        (
            "parallelism_mode",
            "tp",
            "pp",
            "dp",
            "cp",
            "ep",
            "zero_stage",
            "recompute",
            "micro_batch",
            "global_batch",
        ),
        show_when="workload_kind=training|inference",
    ),
    Fieldset(
        "serving",
        "Serving",
        (
            "requests_per_s",
            "target_tokens_per_s",
            "context_len",
            "output_len",
            "max_ttft_s",
            "max_tpot_s",
            "batching",
            "serving_batch",
            "kernel_efficiency",
        ),
        show_when="workload_kind=inference",
    ),
    Fieldset(
        "job",
        "GPU job",
        ("job_single_gpu_hours", "job_parallel_fraction", "job_scaling"),
        show_when="workload_kind=job",
    ),
    Fieldset(
        "economics",
        "Economics",
        (
            "electricity",
            "electricity_usd_per_kwh",
            "grid_carbon",
            "facility",
            "colocation",
            "years",
            "utilization_pct",
            "discount_rate_pct",
            "cloud_usd_per_gpu_hour",
            "server_price_usd",
        ),
    ),
)


# Scenario fields copied straight from cleaned_data (same name, same unit).
DIRECT_FIELDS = (
    "name",
    "notes",
    "nodes",
    "gpus_per_node",
    "cpu",
    "network",
    "switch",
    "topology",
    "network_tiers",
    "oversubscription",
    "cooling",
    "pue",
    "storage_tb",
    "gpu_power_limit_w",
    "workload_kind",
    "tokens_b",
    "precision",
    "optimizer",
    "parallelism_mode",
    "tp",
    "pp",
    "dp",
    "cp",
    "ep",
    "zero_stage",
    "recompute",
    "micro_batch",
    "global_batch",
    "serving_batch",
    "context_len",
    "output_len",
    "requests_per_s",
    "target_tokens_per_s",
    "batching",
    "max_ttft_s",
    "max_tpot_s",
    "kernel_efficiency",
    "job_single_gpu_hours",
    "job_parallel_fraction",
    "job_scaling",
    "electricity",
    "electricity_usd_per_kwh",
    "facility",
    "colocation",
    "grid_carbon",
    "years",
    "cloud_usd_per_gpu_hour",
    "server_price_usd",
)
CUSTOM_GPU_KEYS = {
    "custom_gpu_name": "name",
    "custom_gpu_memory_gb": "memory_gb",
    "custom_gpu_bandwidth_tbs": "memory_bandwidth_tbs",
    "custom_gpu_tdp_w": "tdp_w",
    "custom_gpu_scaleup_gbs": "scaleup_bandwidth_gbs",
    "custom_gpu_price_usd": "price_usd",
}
CUSTOM_GPU_TFLOPS = {"custom_gpu_bf16_tflops": ("bf16", "fp16"), "custom_gpu_fp8_tflops": ("fp8",)}
#: Layout degrees a hand-set layout needs (required in manual mode; 1 when left blank otherwise).
HAND_SET_LAYOUT_FIELDS = ("tp", "pp", "cp", "ep", "micro_batch")
CUSTOM_MODEL_KEYS = ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "ffn_type", "vocab", "seq_len")
