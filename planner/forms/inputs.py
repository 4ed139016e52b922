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
from planner.models import JobScaling, Optimizer, Recompute, Scenario, WorkloadKind


def scenario_inputs_from(data: dict[str, Any]) -> dict[str, Any]:
    """Scenario field values (catalog rows as instances, ratios as fractions) from a valid form."""
    inputs: dict[str, Any] = {name: data.get(name) for name in DIRECT_FIELDS}
    source = data["gpu_source"]
    inputs["gpu"] = data.get("gpu") if source == "catalog" else None
    inputs["system"] = data.get("system") if source == "system" else None
    inputs["custom_gpu"] = _custom_gpu(data) if source == CUSTOM else None
    preset = data.get("model_preset") or ""
    custom_model = preset == CUSTOM and data.get("workload_kind") != WorkloadKind.JOB
    inputs["model_preset"] = "" if preset == CUSTOM else preset
    inputs["custom_model"] = (
        {key: data[f"custom_model_{key}"] for key in CUSTOM_MODEL_KEYS} if custom_model else None
    )
    inputs["utilization"] = data["utilization_pct"] / 100
    inputs["discount_rate"] = data["discount_rate_pct"] / 100
    if not inputs.get("optimizer"):
        inputs["optimizer"] = Optimizer.ADAMW
    if not inputs.get("job_scaling"):
        inputs["job_scaling"] = JobScaling.AMDAHL
    for name in HAND_SET_LAYOUT_FIELDS:
        if inputs.get(name) is None:
            inputs[name] = 1
    if inputs.get("zero_stage") is None:
        inputs["zero_stage"] = 1
    if not inputs.get("recompute"):
        inputs["recompute"] = Recompute.SELECTIVE
    if inputs.get("oversubscription") is None:
        inputs["oversubscription"] = 1.0
    if inputs.get("storage_tb") is None:
        inputs["storage_tb"] = 0.0
    return inputs


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
