"""Between the scenario form and a Scenario: the field values a valid form stands for (percentages as
fractions, the GPU and model as catalog rows or custom specs, engine defaults for what was left blank), and the
form initial data that shows a saved scenario again.
"""

from __future__ import annotations

from typing import Any

from planner.forms.fields import (
    CUSTOM,
    CUSTOM_GPU_KEYS,
    CUSTOM_GPU_TFLOPS,
    CUSTOM_MODEL_KEYS,
    DIRECT_FIELDS,
    HAND_SET_LAYOUT_FIELDS,
)
from planner.models import Batching, JobScaling, Optimizer, Recompute, Scenario, ScenarioInputs, WorkloadKind


def scenario_inputs_from(data: dict[str, Any]) -> ScenarioInputs:
    """Scenario field values (catalog rows as instances, ratios as fractions) from a valid form; what was left
    blank takes the engine's default (ADAMW, selective recompute, ZeRO-1, degrees of 1, non-blocking fabric)."""
    source = data["gpu_source"]
    preset = data.get("model_preset") or ""
    custom_model = preset == CUSTOM and data.get("workload_kind") != WorkloadKind.JOB
    degrees = {name: _given(data.get(name), 1) for name in HAND_SET_LAYOUT_FIELDS}
    return ScenarioInputs(
        name=data.get("name"),
        notes=data.get("notes"),
        gpu=data.get("gpu") if source == "catalog" else None,
        system=data.get("system") if source == "system" else None,
        custom_gpu=_custom_gpu(data) if source == CUSTOM else None,
        nodes=data.get("nodes"),
        gpus_per_node=data.get("gpus_per_node"),
        cpu=data.get("cpu"),
        network=data.get("network"),
        switch=data.get("switch"),
        topology=data.get("topology"),
        network_tiers=data.get("network_tiers"),
        oversubscription=_given(data.get("oversubscription"), 1.0),
        cooling=data.get("cooling"),
        pue=data.get("pue"),
        storage_tb=_given(data.get("storage_tb"), 0.0),
        gpu_power_limit_w=data.get("gpu_power_limit_w"),
        workload_kind=data.get("workload_kind"),
        model_preset="" if preset == CUSTOM else preset,
        custom_model={key: data[f"custom_model_{key}"] for key in CUSTOM_MODEL_KEYS}
        if custom_model
        else None,
        tokens_b=data.get("tokens_b"),
        precision=data.get("precision"),
        optimizer=data.get("optimizer") or Optimizer.ADAMW,
        parallelism_mode=data.get("parallelism_mode"),
        tp=degrees["tp"],
        pp=degrees["pp"],
        dp=data.get("dp"),
        cp=degrees["cp"],
        ep=degrees["ep"],
        zero_stage=_given(data.get("zero_stage"), 1),
        recompute=data.get("recompute") or Recompute.SELECTIVE,
        micro_batch=degrees["micro_batch"],
        global_batch=data.get("global_batch"),
        serving_batch=data.get("serving_batch"),
        context_len=data.get("context_len"),
        output_len=data.get("output_len"),
        requests_per_s=data.get("requests_per_s"),
        target_tokens_per_s=data.get("target_tokens_per_s"),
        batching=data.get("batching") or Batching.CONTINUOUS,
        max_ttft_s=data.get("max_ttft_s"),
        max_tpot_s=data.get("max_tpot_s"),
        kernel_efficiency=data.get("kernel_efficiency"),
        job_single_gpu_hours=data.get("job_single_gpu_hours"),
        job_parallel_fraction=data.get("job_parallel_fraction"),
        job_scaling=data.get("job_scaling") or JobScaling.AMDAHL,
        electricity=data.get("electricity"),
        electricity_usd_per_kwh=data.get("electricity_usd_per_kwh"),
        facility=data.get("facility"),
        colocation=data.get("colocation"),
        grid_carbon=data.get("grid_carbon"),
        years=data.get("years"),
        utilization=data["utilization_pct"] / 100,
        discount_rate=data["discount_rate_pct"] / 100,
        cloud_usd_per_gpu_hour=data.get("cloud_usd_per_gpu_hour"),
        server_price_usd=data.get("server_price_usd"),
    )


def _given(value: Any, default: Any) -> Any:
    """`value`, or `default` when the field was left blank."""
    return default if value is None else value


def _custom_gpu(data: dict[str, Any]) -> dict[str, Any]:
    """The contract GPU spec typed on the form (TFLOPS by precision), blank numbers left out."""
    gpu: dict[str, Any] = {key: data.get(name) for name, key in CUSTOM_GPU_KEYS.items()}
    tflops: dict[str, float] = {}
    for name, keys in CUSTOM_GPU_TFLOPS.items():
        if data.get(name) is not None:
            tflops.update({key: data[name] for key in keys})
    gpu["tflops"] = tflops
    return {k: v for k, v in gpu.items() if v is not None}


def initial_from_scenario(scenario: Scenario) -> dict[str, Any]:
    """Form initial data that reproduces a scenario (the inverse of `scenario_inputs_from`)."""
    initial: dict[str, Any] = {name: getattr(scenario, name) for name in DIRECT_FIELDS}
    for name in ("cpu", "network", "switch", "cooling", "electricity", "colocation", "grid_carbon"):
        initial[name] = getattr(scenario, f"{name}_id")
    if scenario.custom_gpu:
        initial["gpu_source"] = CUSTOM
        reverse = {key: name for name, key in CUSTOM_GPU_KEYS.items()}
        for key, value in scenario.custom_gpu.items():
            if key in reverse:
                initial[reverse[key]] = value
        tflops = scenario.custom_gpu.get("tflops", {})
        initial["custom_gpu_bf16_tflops"] = tflops.get("bf16", tflops.get("fp16"))
        initial["custom_gpu_fp8_tflops"] = tflops.get("fp8")
    elif scenario.system_id:
        initial["gpu_source"] = "system"
        initial["system"] = scenario.system_id
    else:
        initial["gpu_source"] = "catalog"
        initial["gpu"] = scenario.gpu_id
    if scenario.custom_model:
        initial["model_preset"] = CUSTOM
        for key in CUSTOM_MODEL_KEYS:
            initial[f"custom_model_{key}"] = scenario.custom_model.get(key)
    else:
        initial["model_preset"] = scenario.model_preset
    initial["utilization_pct"] = round(scenario.utilization * 100, 6)
    initial["discount_rate_pct"] = round(scenario.discount_rate * 100, 6)
    return {name: _plain_number(value) for name, value in initial.items()}


def _plain_number(value: Any) -> Any:
    """15000.0 -> 15000 so a whole number reads as typed (floats are kept otherwise)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value
