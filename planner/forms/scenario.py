"""Scenario input: the scenario form's fields, with labels and help text in units, and their catalog choices.

Forms never call the engine. The cross-field checks that give a message next to the field concerned, and
`add_engine_problems()` that maps the engine's SpecError paths back here, live in planner/forms/checks.py;
`ScenarioForm.scenario_inputs()` returns the Scenario field values (`planner.models.ScenarioInputs`, built in
planner/forms/inputs.py: percent -> fraction, catalog choices -> rows) that `planner.services` applies.
"""

from __future__ import annotations

from typing import Any

from django import forms

from catalog.models import Cooling, Cpu, EconomicsFact, Gpu, Interconnect, Switch, System
from planner.engine.inference.rates import MAX_KERNEL_EFFICIENCY
from planner.engine.inputs.cluster import PUE_MIN, UTILIZATION_MAX
from planner.forms.checks import ScenarioFormChecks
from planner.forms.fields import (
    COLOCATION_CATEGORY,
    COLOCATION_UNIT,
    COOLING_CATEGORY,
    CUSTOM,
    ELECTRICITY_CATEGORY,
    ELECTRICITY_UNIT,
    GRID_CARBON_CATEGORY,
    MAX_GPUS_PER_NODE,
    MAX_NODES,
    MAX_REQUESTS_PER_S,
    MAX_SEQUENCE_TOKENS,
    MAX_SERVING_BATCH,
    MAX_TOKENS_PER_S,
    SCALE_OUT_CATEGORY_PREFIX,
    CoolingChoiceField,
    FactChoiceField,
    GpuChoiceField,
    NetworkChoiceField,
    SwitchChoiceField,
    SystemChoiceField,
    float_field,
    int_field,
    model_preset_choices,
)
from planner.forms.inputs import scenario_inputs_from
from planner.models import (
    Batching,
    FacilityKind,
    JobScaling,
    Optimizer,
    ParallelismMode,
    Precision,
    Recompute,
    ScenarioInputs,
    Topology,
    WorkloadKind,
)


class ScenarioForm(ScenarioFormChecks):
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
    nodes = int_field("Nodes", "Servers in the cluster.", max_value=MAX_NODES)
    gpus_per_node = int_field(
        "GPUs per node", "GPUs in one server (8 for HGX/DGX).", max_value=MAX_GPUS_PER_NODE
    )
    cpu = forms.ModelChoiceField(
        label="Host CPU",
        queryset=Cpu.objects.none(),
        required=False,
        empty_label="Not specified",
        help_text="Recorded with the plan and listed in the bill of materials.",
    )

    custom_gpu_name = forms.CharField(label="GPU name", max_length=100, required=False)
    custom_gpu_memory_gb = float_field("Memory (GB)", "Capacity as labelled, treated as GiB.", required=False)
    custom_gpu_bandwidth_tbs = float_field("Memory bandwidth (TB/s)", "Peak HBM bandwidth.", required=False)
    custom_gpu_bf16_tflops = float_field(
        "BF16/FP16 dense (TFLOPS)", "Dense tensor peak, without sparsity.", required=False
    )
    custom_gpu_fp8_tflops = float_field("FP8 dense (TFLOPS)", "Leave blank if not supported.", required=False)
    custom_gpu_tdp_w = float_field("TDP (W)", "Maximum board or module power.", required=False)
    custom_gpu_scaleup_gbs = float_field(
        "Scale-up bandwidth (GB/s)", "Per GPU, both directions summed (NVLink 4 = 900).", required=False
    )
    custom_gpu_price_usd = float_field("Price per GPU (USD)", "Planning price.", required=False)

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
    oversubscription = float_field(
        "Oversubscription (x:1)", "1 = non-blocking; 2 = half the uplinks.", min_value=1.0, max_value=64.0
    )
    cooling = CoolingChoiceField(
        label="Cooling",
        queryset=Cooling.objects.none(),
        required=False,
        empty_label="Engine default (air cooling, industry-average PUE)",
        help_text="Sets PUE, rack density and fit-out capex per kW (the engine's sourced preset). Blank: air.",
    )
    pue = float_field(
        "PUE override",
        "Facility power ÷ IT power, at least 1.0. Blank: the cooling's.",
        min_value=PUE_MIN,
        required=False,
    )
    storage_tb = float_field("Storage (TB)", "Shared storage capacity, decimal TB.", initial=0.0)
    gpu_power_limit_w = float_field(
        "GPU power limit (W)",
        "Cap each GPU below its TDP: less power and nameplate, less throughput (sourced). Blank: no cap.",
        required=False,
    )
    gpu_power_limit_pct = float_field(
        "GPU power limit (% of TDP)",
        "Or the cap as a share of the GPU's TDP; give this or the watts, not both.",
        required=False,
    )

    workload_kind = forms.ChoiceField(label="Workload", choices=WorkloadKind.choices)
    model_preset = forms.ChoiceField(label="Model", choices=(), required=False)
    tokens_b = float_field(
        "Training tokens (billions)",
        "15,000 = 15 trillion tokens (Llama 3.1).",
        required=False,
        min_value=None,
    )
    precision = forms.ChoiceField(label="Precision", choices=Precision.choices)
    optimizer = forms.ChoiceField(label="Optimizer", choices=Optimizer.choices, required=False)

    custom_model_layers = int_field("Layers", "Transformer blocks.", required=False)
    custom_model_hidden = int_field("Hidden size", "Model width (d_model).", required=False)
    custom_model_heads = int_field("Attention heads", "Query heads.", required=False)
    custom_model_kv_heads = int_field("KV heads", "Fewer than heads means GQA/MQA.", required=False)
    custom_model_ffn_hidden = int_field("FFN hidden size", "Intermediate width of the MLP.", required=False)
    custom_model_ffn_type = forms.ChoiceField(
        label="FFN type",
        choices=[("swiglu", "SwiGLU (3 matrices)"), ("gelu", "GELU (2 matrices)")],
        required=False,
    )
    custom_model_vocab = int_field("Vocabulary", "Tokens in the vocabulary.", required=False)
    custom_model_seq_len = int_field("Sequence length", "Tokens per training sequence.", required=False)

    parallelism_mode = forms.ChoiceField(
        label="Parallelism",
        choices=ParallelismMode.choices,
        widget=forms.RadioSelect,
        help_text="Automatic searches every layout on these GPUs and keeps the fastest that fits.",
    )
    tp = int_field("Tensor parallel (TP)", "GPUs sharing each layer; usually within a node.", required=False)
    pp = int_field("Pipeline parallel (PP)", "Pipeline stages.", required=False)
    dp = int_field("Data parallel (DP)", "Blank: GPUs ÷ (TP × PP × CP).", required=False)
    cp = int_field("Context parallel (CP)", "Splits each sequence.", required=False)
    ep = int_field("Expert parallel (EP)", "For mixture-of-experts models.", required=False)
    zero_stage = forms.TypedChoiceField(
        label="ZeRO stage",
        choices=[(0, "0 (none)"), (1, "1 (optimizer states)"), (2, "2 (+ gradients)"), (3, "3 / FSDP")],
        coerce=int,
        initial=1,
    )
    recompute = forms.ChoiceField(label="Activation recompute", choices=Recompute.choices)
    micro_batch = int_field("Micro-batch (sequences)", "Sequences per GPU per forward pass.", required=False)
    global_batch = int_field(
        "Global batch (sequences)",
        "Sequences per optimizer step (1,024 × 8,192 tokens = 8.4 M tokens, as Llama 3 mid-training).",
        required=False,
    )

    batching = forms.ChoiceField(
        label="Batching",
        choices=Batching.choices,
        initial=Batching.CONTINUOUS,
        required=False,
        help_text="Continuous: how production servers run. Static: a batch prefilled together, then decoded.",
    )
    requests_per_s = float_field(
        "Request rate (requests/s)",
        "Whole service, random (Poisson) arrivals. Or give the output tokens/s below.",
        required=False,
        max_value=MAX_REQUESTS_PER_S,
    )
    target_tokens_per_s = float_field(
        "Or: output throughput (tokens/s)",
        "Whole service; the rate is tokens/s ÷ output length.",
        required=False,
        max_value=MAX_TOKENS_PER_S,
    )
    context_len = int_field(
        "Input length (tokens)",
        "Prompt tokens per request (mean).",
        required=False,
        max_value=MAX_SEQUENCE_TOKENS,
    )
    output_len = int_field(
        "Output length (tokens)",
        "Generated tokens per request (mean).",
        required=False,
        max_value=MAX_SEQUENCE_TOKENS,
    )
    max_ttft_s = float_field(
        "Time to first token, p90 (s)", "Latency target 90 % of requests meet; optional.", required=False
    )
    max_tpot_s = float_field(
        "Time per output token, p90 (s)", "0.05 s = 20 tokens/s per user; optional.", required=False
    )
    kernel_efficiency = float_field(
        "Kernel efficiency (× calibrated)",
        "Your serving stack's GEMM and attention speed against the average of the published stacks the engine is "
        f"calibrated on. Blank: 1.0. 1.2 = 20 % faster kernels (from your own benchmark); up to {MAX_KERNEL_EFFICIENCY:g}.",
        required=False,
        max_value=MAX_KERNEL_EFFICIENCY,
    )
    serving_batch = int_field(
        "Batch (requests per replica)",
        "Requests in flight per replica. Blank: the server's running limit. Required for static batching.",
        required=False,
        max_value=MAX_SERVING_BATCH,
    )

    job_single_gpu_hours = float_field("Run time on one GPU (hours)", "Measured.", required=False)
    job_parallel_fraction = float_field(
        "Parallel fraction", "Share of the run that scales (0–1); 0.95 = 95 %.", max_value=1.0, required=False
    )
    job_scaling = forms.ChoiceField(label="Scaling law", choices=JobScaling.choices, required=False)

    electricity = FactChoiceField(
        label="Region (electricity price)",
        queryset=EconomicsFact.objects.none(),
        required=False,
        help_text="Catalog electricity price in USD/kWh.",
    )
    electricity_usd_per_kwh = float_field(
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
    years = int_field("Life (years)", "Depreciation / ownership period.", max_value=30)
    utilization_pct = float_field(
        "Utilisation (%)",
        "Share of hours the cluster is busy.",
        min_value=1.0,
        max_value=UTILIZATION_MAX * 100,
    )
    discount_rate_pct = float_field(
        "Discount rate (%/year)", "0 = plain sum; above 0 = net present value.", max_value=99.0
    )
    cloud_usd_per_gpu_hour = float_field(
        "Cloud price (USD per GPU-hour)",
        "Rental price to compare against. Blank: midpoint of published on-demand prices (A100, H100, H200, B200).",
        required=False,
    )
    server_price_usd = float_field(
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

    def scenario_inputs(self) -> ScenarioInputs:
        """Scenario field values from this valid form (see `scenario_inputs_from`)."""
        return scenario_inputs_from(self.cleaned_data)
