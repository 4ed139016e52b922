"""Scenario input: labels and help text with units, normalisation of what people type (percent -> fraction,
catalog choices -> rows) and the cross-field checks that give a message next to the field concerned.

Forms never call the engine. `ScenarioForm.scenario_inputs()` returns a dict of Scenario field values that
`planner.services` turns into a scenario; `add_engine_problems()` maps the engine's SpecError paths back here.
"""

from __future__ import annotations

from typing import Any

from django import forms

from catalog.models import Cooling, Cpu, EconomicsFact, Gpu, Interconnect, Switch, System
from planner.adapters import CLOUD_PRICE_REFERENCES, field_for_path
from planner.forms_fields import (
    COLOCATION_CATEGORY,
    COLOCATION_UNIT,
    COOLING_CATEGORY,
    CUSTOM,
    CUSTOM_GPU_KEYS,
    CUSTOM_GPU_TFLOPS,
    CUSTOM_MODEL_KEYS,
    DIRECT_FIELDS,
    ELECTRICITY_CATEGORY,
    ELECTRICITY_UNIT,
    FIELDSETS,
    GRID_CARBON_CATEGORY,
    MAX_GPUS_PER_NODE,
    MAX_NODES,
    MAX_TOKENS_B,
    SCALE_OUT_CATEGORY_PREFIX,
    CoolingChoiceField,
    FactChoiceField,
    Fieldset,
    GpuChoiceField,
    NetworkChoiceField,
    SwitchChoiceField,
    SystemChoiceField,
    _float,
    _int,
    model_preset_choices,
)
from planner.forms_pages import (
    CloneForm,
    CompareForm,
    IntegerListField,
    ScenarioSearchForm,
    SignupForm,
)
from planner.models import (
    FacilityKind,
    JobScaling,
    Optimizer,
    ParallelismMode,
    Precision,
    Recompute,
    Scenario,
    Topology,
    WorkloadKind,
)

#: Everything the planning pages import from here (building blocks and small forms live in forms_fields.py
#: and forms_pages.py; they are re-exported so `from planner.forms import X` keeps working).
__all__ = [
    "COLOCATION_CATEGORY",
    "COLOCATION_UNIT",
    "COOLING_CATEGORY",
    "CUSTOM",
    "CUSTOM_GPU_KEYS",
    "CUSTOM_GPU_TFLOPS",
    "CUSTOM_MODEL_KEYS",
    "CloneForm",
    "CompareForm",
    "CoolingChoiceField",
    "DIRECT_FIELDS",
    "ELECTRICITY_CATEGORY",
    "ELECTRICITY_UNIT",
    "FIELDSETS",
    "FactChoiceField",
    "Fieldset",
    "GRID_CARBON_CATEGORY",
    "GpuChoiceField",
    "IntegerListField",
    "MAX_GPUS_PER_NODE",
    "MAX_NODES",
    "MAX_TOKENS_B",
    "NetworkChoiceField",
    "SCALE_OUT_CATEGORY_PREFIX",
    "ScenarioForm",
    "ScenarioSearchForm",
    "SignupForm",
    "SwitchChoiceField",
    "SystemChoiceField",
    "initial_from_scenario",
    "model_preset_choices",
]


class ScenarioForm(forms.Form):
    name = forms.CharField(label="Name", max_length=200, help_text="Shown in lists and comparisons.")
    notes = forms.CharField(label="Notes", required=False, widget=forms.Textarea(attrs={"rows": 2}))

    gpu_source = forms.ChoiceField(
        label="GPU from",
        choices=[("catalog", "The GPU catalog"), ("system", "A system template"), (CUSTOM, "Custom numbers")],
        initial="catalog",
        widget=forms.RadioSelect,
    )
    gpu = GpuChoiceField(
        label="GPU",
        queryset=Gpu.objects.none(),
        required=False,
        help_text="Datasheet numbers from the catalog (dense tensor TFLOPS, memory as labelled).",
    )
    system = SystemChoiceField(
        label="System template",
        queryset=System.objects.none(),
        required=False,
        help_text="Takes the GPU, GPUs per node, rated power and price from the catalog system.",
    )
    nodes = _int("Nodes", "Servers in the cluster.", max_value=MAX_NODES)
    gpus_per_node = _int("GPUs per node", "GPUs in one server (8 for HGX/DGX).", max_value=MAX_GPUS_PER_NODE)
    cpu = forms.ModelChoiceField(
        label="Host CPU",
        queryset=Cpu.objects.none(),
        required=False,
        empty_label="Not specified",
        help_text="Recorded with the plan and listed in the bill of materials.",
    )

    custom_gpu_name = forms.CharField(label="GPU name", max_length=100, required=False)
    custom_gpu_memory_gb = _float("Memory (GB)", "Capacity as labelled, treated as GiB.", required=False)
    custom_gpu_bandwidth_tbs = _float("Memory bandwidth (TB/s)", "Peak HBM bandwidth.", required=False)
    custom_gpu_bf16_tflops = _float(
        "BF16/FP16 dense (TFLOPS)", "Dense tensor peak, without sparsity.", required=False
    )
    custom_gpu_fp8_tflops = _float("FP8 dense (TFLOPS)", "Leave blank if not supported.", required=False)
    custom_gpu_tdp_w = _float("TDP (W)", "Maximum board or module power.", required=False)
    custom_gpu_scaleup_gbs = _float(
        "Scale-up bandwidth (GB/s)", "Per GPU, both directions summed (NVLink 4 = 900).", required=False
    )
    custom_gpu_price_usd = _float("Price per GPU (USD)", "Planning price.", required=False)

    network = NetworkChoiceField(
        label="Scale-out network",
        queryset=Interconnect.objects.none(),
        required=False,
        empty_label="Engine default (400 Gb/s per GPU)",
        help_text="One port of this speed per GPU (Gb/s). Blank: the engine's default of 400 Gb/s.",
    )
    switch = SwitchChoiceField(
        label="Switch",
        queryset=Switch.objects.none(),
        required=False,
        empty_label="Engine default switch",
        help_text="Radix and port speed size the fabric. Blank: the engine's default switch.",
    )
    topology = forms.ChoiceField(label="Topology", choices=Topology.choices, initial=Topology.RAIL_OPTIMIZED)
    network_tiers = forms.TypedChoiceField(
        label="Tiers",
        choices=[("", "As few as fit"), ("2", "2 (leaf-spine)"), ("3", "3 (fat tree)")],
        coerce=int,
        empty_value=None,
        required=False,
    )
    oversubscription = _float(
        "Oversubscription (x:1)", "1 = non-blocking; 2 = half the uplinks.", min_value=1.0, max_value=64.0
    )
    cooling = CoolingChoiceField(
        label="Cooling",
        queryset=Cooling.objects.none(),
        required=False,
        empty_label="Engine default (air cooling, industry-average PUE)",
        help_text="Sets PUE, rack density and fit-out capex per kW (the engine's sourced preset). Blank: air.",
    )
    pue = _float(
        "PUE override",
        "Facility power ÷ IT power, at least 1.0. Blank: the cooling's.",
        min_value=1.0,
        required=False,
    )
    storage_tb = _float("Storage (TB)", "Shared storage capacity, decimal TB.", initial=0.0)

    workload_kind = forms.ChoiceField(label="Workload", choices=WorkloadKind.choices)
    model_preset = forms.ChoiceField(label="Model", choices=(), required=False)
    tokens_b = _float(
        "Training tokens (billions)",
        "15,000 = 15 trillion tokens (Llama 3.1).",
        required=False,
        min_value=None,
    )
    precision = forms.ChoiceField(label="Precision", choices=Precision.choices)
    optimizer = forms.ChoiceField(label="Optimizer", choices=Optimizer.choices, required=False)

    custom_model_layers = _int("Layers", "Transformer blocks.", required=False)
    custom_model_hidden = _int("Hidden size", "Model width (d_model).", required=False)
    custom_model_heads = _int("Attention heads", "Query heads.", required=False)
    custom_model_kv_heads = _int("KV heads", "Fewer than heads means GQA/MQA.", required=False)
    custom_model_ffn_hidden = _int("FFN hidden size", "Intermediate width of the MLP.", required=False)
    custom_model_ffn_type = forms.ChoiceField(
        label="FFN type",
        choices=[("swiglu", "SwiGLU (3 matrices)"), ("gelu", "GELU (2 matrices)")],
        required=False,
    )
    custom_model_vocab = _int("Vocabulary", "Tokens in the vocabulary.", required=False)
    custom_model_seq_len = _int("Sequence length", "Tokens per training sequence.", required=False)

    parallelism_mode = forms.ChoiceField(
        label="Parallelism",
        choices=ParallelismMode.choices,
        widget=forms.RadioSelect,
        help_text="Automatic searches every layout on these GPUs and keeps the fastest that fits.",
    )
    tp = _int("Tensor parallel (TP)", "GPUs sharing each layer; usually within a node.", required=False)
    pp = _int("Pipeline parallel (PP)", "Pipeline stages.", required=False)
    dp = _int("Data parallel (DP)", "Blank: GPUs ÷ (TP × PP × CP).", required=False)
    cp = _int("Context parallel (CP)", "Splits each sequence.", required=False)
    ep = _int("Expert parallel (EP)", "For mixture-of-experts models.", required=False)
    zero_stage = forms.TypedChoiceField(
        label="ZeRO stage",
        choices=[(0, "0 (none)"), (1, "1 (optimizer states)"), (2, "2 (+ gradients)"), (3, "3 / FSDP")],
        coerce=int,
        initial=1,
    )
    recompute = forms.ChoiceField(label="Activation recompute", choices=Recompute.choices)
    micro_batch = _int("Micro-batch (sequences)", "Sequences per GPU per forward pass.", required=False)
    global_batch = _int(
        "Global batch (sequences)",
        "Sequences per optimizer step (1,024 × 8,192 tokens = 8.4 M tokens, as Llama 3 mid-training).",
        required=False,
    )

    serving_batch = _int("Batch (requests)", "Requests decoded together.", required=False)
    context_len = _int("Context length (tokens)", "Prompt tokens per request.", required=False)
    output_len = _int("Output length (tokens)", "Generated tokens per request.", required=False)
    target_tokens_per_s = _float("Target throughput (tokens/s)", "Whole service; optional.", required=False)
    max_ttft_s = _float("Max time to first token (s)", "Latency bound; optional.", required=False)
    max_tpot_s = _float("Max time per output token (s)", "Latency bound; optional.", required=False)

    job_single_gpu_hours = _float("Run time on one GPU (hours)", "Measured.", required=False)
    job_parallel_fraction = _float(
        "Parallel fraction", "Share of the run that scales (0–1); 0.95 = 95 %.", max_value=1.0, required=False
    )
    job_scaling = forms.ChoiceField(label="Scaling law", choices=JobScaling.choices, required=False)

    electricity = FactChoiceField(
        label="Region (electricity price)",
        queryset=EconomicsFact.objects.none(),
        required=False,
        help_text="Catalog electricity price in USD/kWh.",
    )
    electricity_usd_per_kwh = _float(
        "Electricity override (USD/kWh)", "Your contract price; replaces the region's.", required=False
    )
    grid_carbon = FactChoiceField(
        label="Grid carbon intensity",
        queryset=EconomicsFact.objects.none(),
        required=False,
        empty_label="Not counted",
        help_text="kg CO₂ per kWh of electricity; blank: no carbon figures.",
    )
    facility = forms.ChoiceField(label="Facility", choices=FacilityKind.choices, widget=forms.RadioSelect)
    colocation = FactChoiceField(
        label="Colocation rate",
        queryset=EconomicsFact.objects.none(),
        required=False,
        help_text="USD per kW of IT per month.",
    )
    years = _int("Life (years)", "Depreciation / ownership period.", max_value=30)
    utilization_pct = _float(
        "Utilisation (%)", "Share of hours the cluster is busy.", min_value=1.0, max_value=100.0
    )
    discount_rate_pct = _float(
        "Discount rate (%/year)", "0 = plain sum; above 0 = net present value.", max_value=99.0
    )
    cloud_usd_per_gpu_hour = _float(
        "Cloud price (USD per GPU-hour)",
        "Rental price to compare against. Blank: midpoint of published on-demand prices (A100, H100, H200, B200).",
        required=False,
    )
    server_price_usd = _float(
        "Server price override (USD per node)",
        "Price of one node with its GPUs. Blank: the system's price, else catalog GPU price plus host parts.",
        required=False,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        f = self.fields
        f["gpu"].queryset = Gpu.objects.all()
        f["system"].queryset = System.objects.select_related("gpu").all()
        f["cpu"].queryset = Cpu.objects.all()
        f["network"].queryset = Interconnect.objects.filter(
            category__istartswith=SCALE_OUT_CATEGORY_PREFIX, port_rate_gbps__isnull=False
        )
        f["switch"].queryset = Switch.objects.filter(ports__isnull=False, port_speed_gbps__isnull=False)
        f["cooling"].queryset = Cooling.objects.filter(category=COOLING_CATEGORY)
        f["electricity"].queryset = EconomicsFact.objects.filter(
            category=ELECTRICITY_CATEGORY, unit=ELECTRICITY_UNIT, value__isnull=False
        )
        f["colocation"].queryset = EconomicsFact.objects.filter(
            category=COLOCATION_CATEGORY, unit=COLOCATION_UNIT, value__isnull=False
        )
        f["grid_carbon"].queryset = EconomicsFact.objects.filter(
            category=GRID_CARBON_CATEGORY, value__isnull=False
        )
        f["model_preset"].choices = model_preset_choices()

    # ------------------------------------------------------------------------------------------ cleaning

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        self._clean_gpu(data)
        kind = data.get("workload_kind")
        if kind in (WorkloadKind.TRAINING, WorkloadKind.INFERENCE):
            self._clean_model(data)
        if kind == WorkloadKind.TRAINING:
            self._clean_training(data)
        elif kind == WorkloadKind.INFERENCE:
            for name in ("serving_batch", "context_len", "output_len"):
                self._require(data, name)
        elif kind == WorkloadKind.JOB:
            self._require(data, "job_single_gpu_hours")
            self._require(data, "job_parallel_fraction")
            if data.get("job_single_gpu_hours") is not None and data["job_single_gpu_hours"] <= 0:
                self.add_error("job_single_gpu_hours", "Must be more than 0 hours.")
        self._clean_economics(data)
        return data

    def _require(self, data: dict[str, Any], name: str, message: str = "") -> None:
        if data.get(name) in (None, "") and name not in self.errors:
            label = self.fields[name].label
            self.add_error(name, message or f"{label} is required for this workload.")

    def _clean_gpu(self, data: dict[str, Any]) -> None:
        source = data.get("gpu_source")
        if source == "catalog":
            self._require(data, "gpu", "Pick a GPU from the catalog (or choose a system template).")
        elif source == "system":
            system = data.get("system")
            if system is None:
                self._require(data, "system", "Pick a system template.")
            elif system.gpu_id is None:
                self.add_error(
                    "system", f"The GPU of {system.name} is not in the catalog; pick the GPU instead."
                )
            elif system.gpus:
                data["gpus_per_node"] = system.gpus  # the template fixes the GPUs per node
        elif source == CUSTOM:
            for name in (
                "custom_gpu_name",
                "custom_gpu_memory_gb",
                "custom_gpu_bandwidth_tbs",
                "custom_gpu_bf16_tflops",
                "custom_gpu_tdp_w",
                "custom_gpu_scaleup_gbs",
            ):
                self._require(data, name, "Needed for a custom GPU.")
            for name in (
                "custom_gpu_memory_gb",
                "custom_gpu_bandwidth_tbs",
                "custom_gpu_bf16_tflops",
                "custom_gpu_tdp_w",
            ):
                if data.get(name) is not None and data[name] <= 0:
                    self.add_error(name, "Must be more than 0.")
        self._clean_catalog_gpu_specs(data)

    def _clean_catalog_gpu_specs(self, data: dict[str, Any]) -> None:
        """A catalog GPU must carry the numbers the engine needs; say which are missing on the GPU field."""
        gpu = self._chosen_gpu(data)
        if gpu is None:
            return
        missing = gpu.missing_key_specs()
        if missing:
            field = "system" if data.get("gpu_source") == "system" else "gpu"
            self.add_error(
                field,
                f"The catalog has no {', '.join(missing)} for the {gpu.model}, and the engine needs it: "
                "pick another GPU, or enter it as a custom GPU with those numbers.",
            )

    def _clean_model(self, data: dict[str, Any]) -> None:
        if data.get("model_preset") in (None, ""):
            self._require(data, "model_preset", "Pick a model preset or a custom shape.")
        elif data["model_preset"] == CUSTOM:
            for key in CUSTOM_MODEL_KEYS:
                self._require(data, f"custom_model_{key}", "Needed for a custom model shape.")
            heads, hidden = data.get("custom_model_heads"), data.get("custom_model_hidden")
            if heads and hidden and hidden % heads:
                self.add_error("custom_model_heads", f"Must divide the hidden size {hidden:,} (got {heads}).")
            kv = data.get("custom_model_kv_heads")
            if heads and kv and heads % kv:
                self.add_error(
                    "custom_model_kv_heads", f"Must divide the {heads} attention heads (got {kv})."
                )

    def _clean_training(self, data: dict[str, Any]) -> None:
        self._require(data, "tokens_b")
        tokens_b = data.get("tokens_b")
        if tokens_b is not None and not 0 < tokens_b <= MAX_TOKENS_B:
            self.add_error(
                "tokens_b",
                f"Give the token count in billions, between 0 and {MAX_TOKENS_B:,.0f} (got {tokens_b:g}).",
            )
        if not data.get("optimizer"):
            self._require(data, "optimizer")
        self._require(data, "global_batch")
        if data.get("parallelism_mode") != ParallelismMode.MANUAL:
            return
        for name in ("tp", "pp", "cp", "ep", "micro_batch"):
            self._require(data, name, "Needed when parallelism is set by hand.")
        gpn, nodes = data.get("gpus_per_node"), data.get("nodes")
        tp, pp, cp, dp = data.get("tp"), data.get("pp"), data.get("cp"), data.get("dp")
        if not (gpn and nodes and tp and pp and cp):
            return
        total = gpn * nodes
        if tp <= gpn and gpn % tp:
            self.add_error("tp", f"TP must divide the {gpn} GPUs of a node (got {tp}).")
            return
        if tp > gpn and tp % gpn:
            self.add_error("tp", f"TP beyond a node must be a multiple of its {gpn} GPUs (got {tp}).")
            return
        model_parallel = tp * pp * cp
        if total % model_parallel:
            self.add_error(
                "pp", f"TP × PP × CP = {model_parallel:,} must divide the {total:,} GPUs of the cluster."
            )
            return
        if dp is not None and model_parallel * dp != total:
            self.add_error(
                "dp",
                f"TP × PP × CP × DP = {model_parallel * dp:,} must equal the {total:,} GPUs (blank derives DP).",
            )
            return
        dp = dp or total // model_parallel
        micro, global_batch = data.get("micro_batch"), data.get("global_batch")
        if micro and global_batch and global_batch % (micro * dp):
            self.add_error(
                "global_batch",
                f"Must be a multiple of micro-batch × DP = {micro} × {dp} = {micro * dp:,} (got {global_batch:,}).",
            )

    def _chosen_gpu(self, data: dict[str, Any]) -> Gpu | None:
        source = data.get("gpu_source")
        if source == "catalog":
            return data.get("gpu")
        if source == "system" and data.get("system") is not None:
            return data["system"].gpu
        return None

    def _clean_prices(self, data: dict[str, Any]) -> None:
        """Server and rental prices must be known: typed, from the catalog, or from a published reference."""
        gpu = self._chosen_gpu(data)
        source = data.get("gpu_source")
        name = gpu.model if gpu is not None else (data.get("custom_gpu_name") or "this GPU")
        if data.get("server_price_usd") is None:
            system = data.get("system") if source == "system" else None
            gpu_price = (
                data.get("custom_gpu_price_usd") if source == CUSTOM else getattr(gpu, "price_usd", None)
            )
            if (
                (system is None or system.price_usd is None)
                and gpu_price is None
                and (gpu or source == CUSTOM)
            ):
                self.add_error(
                    "server_price_usd",
                    f"The catalog has no price for the {name}: type the price of one node.",
                )
        no_reference = gpu is None or gpu.pk not in CLOUD_PRICE_REFERENCES
        if data.get("cloud_usd_per_gpu_hour") is None and (gpu or source == CUSTOM) and no_reference:
            self.add_error(
                "cloud_usd_per_gpu_hour",
                f"No published rental price on file for the {name}: type the price you were quoted.",
            )

    def _clean_economics(self, data: dict[str, Any]) -> None:
        self._clean_prices(data)
        if data.get("electricity") is None and data.get("electricity_usd_per_kwh") is None:
            self.add_error("electricity", "Pick a region or type your electricity price.")
        if data.get("facility") == FacilityKind.COLOCATION and data.get("colocation") is None:
            self.add_error("colocation", "Pick a colocation rate (or choose your own facility).")

    # ------------------------------------------------------------------------------------------ output

    def scenario_inputs(self) -> dict[str, Any]:
        """Scenario field values (catalog rows as instances, ratios as fractions) from a valid form."""
        data = self.cleaned_data
        inputs: dict[str, Any] = {name: data.get(name) for name in DIRECT_FIELDS}
        source = data["gpu_source"]
        inputs["gpu"] = data.get("gpu") if source == "catalog" else None
        inputs["system"] = data.get("system") if source == "system" else None
        inputs["custom_gpu"] = self._custom_gpu(data) if source == CUSTOM else None
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
        for name, default in (("tp", 1), ("pp", 1), ("cp", 1), ("ep", 1), ("micro_batch", 1)):
            if inputs.get(name) is None:
                inputs[name] = default
        if inputs.get("zero_stage") is None:
            inputs["zero_stage"] = 1
        if not inputs.get("recompute"):
            inputs["recompute"] = Recompute.SELECTIVE
        if inputs.get("oversubscription") is None:
            inputs["oversubscription"] = 1.0
        if inputs.get("storage_tb") is None:
            inputs["storage_tb"] = 0.0
        return inputs

    @staticmethod
    def _custom_gpu(data: dict[str, Any]) -> dict[str, Any]:
        gpu: dict[str, Any] = {key: data.get(name) for name, key in CUSTOM_GPU_KEYS.items()}
        tflops: dict[str, float] = {}
        for name, keys in CUSTOM_GPU_TFLOPS.items():
            if data.get(name) is not None:
                tflops.update({key: data[name] for key in keys})
        gpu["tflops"] = tflops
        return {k: v for k, v in gpu.items() if v is not None}

    def add_engine_problems(self, problems: list[Any]) -> None:
        """Attach each engine SpecError problem to the field it concerns (else to the form as a whole)."""
        custom_gpu = self.cleaned_data.get("gpu_source") == CUSTOM
        custom_model = self.cleaned_data.get("model_preset") == CUSTOM
        for problem in problems:
            name = field_for_path(problem.path, custom_gpu=custom_gpu, custom_model=custom_model)
            if name == "gpu" and self.cleaned_data.get("gpu_source") == "system":
                name = "system"
            if name in self.fields and name not in self.errors:
                self.add_error(name, problem.message)
            elif name in self.fields:
                self.errors[name].append(problem.message)
            else:
                self.add_error(None, f"{problem.path}: {problem.message}")


def initial_from_scenario(scenario: Scenario) -> dict[str, Any]:
    """Form initial data that reproduces a scenario (the inverse of `scenario_inputs`)."""
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
