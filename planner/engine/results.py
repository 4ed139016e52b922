"""The shape of what the engine returns: one TypedDict per output section of `estimate` and `search`.

At run time every section is a plain dict of JSON values (the command line prints it with `json.dumps`); these
types let callers read it with keys a type checker follows (`result["time"]["days"]`) instead of strings it
cannot. Units are in the key names and in docs/engine-contract.md, which describes every field. A key that only
some results carry is `NotRequired`; a value the engine cannot know for this result is `None`.
tests/engine/test_results.py checks these types against real results, key for key. (No `from __future__ import
annotations` here: TypedDict reads NotRequired from evaluated annotations only.)
"""

from typing import Any, Literal, NotRequired, TypedDict

Kind = Literal["training", "inference", "job"]


class Assumption(TypedDict):
    """One default or derived value the result used, with its unit and source (`assumptions` section)."""

    value: Any
    unit: str
    source: str


# --- model, parallelism, memory -----------------------------------------------------------------------------


class ModelSection(TypedDict):
    name: str
    params_b: float  # every parameter stored, billions
    active_params_b: float  # parameters one token passes through (MoE: top-k experts), billions
    flop_per_token: float  # training model FLOPs per token (forward + backward, no recompute)


class TrainingParallelismSection(TypedDict):
    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    virtual_stages: int
    sequence_parallel: bool
    zero_stage: int
    recompute: Literal["none", "selective", "full"]
    flash_attention: bool | str  # as the input writes it: false, true or "v1"/"v2"
    flash_attention_version: str | None  # None without FlashAttention
    dp_overlap: bool
    reshard_after_forward: bool  # ZeRO-3: parameters re-gathered for the backward (FSDP's default)
    hsdp: bool  # ZeRO shards within a node, replicated across nodes
    pipeline_split: str  # "balanced" (embedding, output + loss count as a layer) or "even"
    framework: str  # workload.framework ("typical", "megatron", "fsdp", "deepspeed")
    micro_batch: int
    global_batch: int
    microbatches: int  # per pipeline per step: global_batch / (dp x micro_batch)
    gpus: int
    auto: bool  # True: the engine chose the layout (workload.parallelism omitted or {"auto": true})


class InferenceParallelismSection(TypedDict):
    tp: int
    pp: int
    ep: int
    dp_attention: bool
    gpus: int


class MemoryBreakdownGib(TypedDict):
    weights: float
    gradients: float
    optimizer: float
    activations: float
    other: float
    kv_cache: float


class MemorySection(TypedDict):
    """Per GPU, GiB, for the most loaded GPU (training: the larger pipeline stage)."""

    weights_gib: float
    gradients_gib: float
    optimizer_gib: float
    activations_gib: float
    kv_cache_gib: float
    other_gib: float
    per_gpu_gib: float
    capacity_gib: float
    fits: bool
    headroom_gib: float
    message: str
    breakdown_gib: MemoryBreakdownGib


# --- workloads ----------------------------------------------------------------------------------------------


class StepBreakdownS(TypedDict):
    """Seconds of one optimizer step by cause (they add up to step_s)."""

    compute: float
    recompute: float
    tp_comm: float
    cp_comm: float
    ep_comm: float
    pp_bubble: float
    pp_p2p: float
    dp_comm: float
    zero_comm: float  # ZeRO-3/FSDP per-layer gathers and reduce-scatters, the exposed part
    optimizer: float
    host: float  # kernel launches the GPU waits for (perf/framework.py), small models and micro-batches
    ceiling: float  # time added to stay within the best published MFU (perf/achieved.py)


class OverheadPart(TypedDict):
    days: float
    share: float  # of the whole run's days


class NearestCase(TypedDict):
    """The shipped validation case nearest to a training layout (accuracy/nearest.py)."""

    id: str
    group: str
    gpu_generation: str  # "a100", "h100" or "other"
    layout_family: str  # "fsdp", "megatron", "hybrid", "dp"
    params_b: float
    gpus: int
    distance: float
    differs_in: list[str]  # what the case does not share with the layout (generation, family)
    source: str


class TimeSection(TypedDict):
    """Training time (kind "training")."""

    step_s: float
    tokens_per_s: float  # whole cluster, steady state
    mfu: float
    hfu: float
    model_tflops_per_gpu: float
    hardware_tflops_per_gpu: float
    days: float  # the whole run, goodput included
    gpu_hours: float
    days_low: float
    days_high: float
    gpu_hours_low: float
    gpu_hours_high: float
    range_ratio: list[float]  # (low, high) × days: the leave-one-out band, widened for each reason
    range_reasons: list[
        str
    ]  # why the range is wider than the validated band (empty inside the validated cases)
    goodput: float  # steady-state time / whole-run time
    steady_days: float  # the steady state alone (no overheads)
    steady_state_days: float  # the same figure under its contract name
    overheads: dict[str, OverheadPart]  # training/goodput.PARTS -> days and share of the whole run
    steps: float
    tokens: float
    expected_interruptions: float
    breakdown_s: StepBreakdownS
    nearest_validated_case: NearestCase  # the shipped validation case closest to this layout


class InferenceSection(TypedDict):
    """What the static-batch roofline (inference/roofline.py) reports; the `inference` section of a result adds
    the serving model's keys (inference/continuous.py, api.static_serving_keys) to it."""

    ttft_s: float
    tpot_s: float
    tokens_per_s: float  # generated tokens, whole cluster
    tokens_per_s_per_gpu: float
    max_concurrent_requests: int  # per model replica
    kv_cache_gib_per_request: float
    gpus_needed: int | None  # None without serving.target_tokens_per_s (or when no batch meets the bounds)
    meets_target: bool
    fits: bool
    batch: int
    best_batch: int | None
    replicas: int
    weights_gib_per_gpu: float
    kv_cache_gib_per_gpu: float
    per_gpu_gib: float
    prefill_bound: Literal["compute", "memory"]
    decode_bound: Literal["compute", "memory"]
    warnings: list[str]


class JobSection(TypedDict):
    """A generic GPU job (kind "job")."""

    time_s: float
    days: float
    gpu_hours: float
    speedup: float
    parallel_efficiency: float
    parallel_fraction: float
    scaling: Literal["amdahl", "gustafson"]
    gpus: int


# --- facility -----------------------------------------------------------------------------------------------


class BomEntry(TypedDict):
    item: str
    quantity: int
    unit_usd: float
    total_usd: float
    unit_power_w: float
    note: str


class NetworkSection(TypedDict):
    tiers: int
    topology: Literal["rail_optimized", "fat_tree"]
    endpoints: int
    oversubscription: float
    switch: str
    switches: int
    leaf_switches: int
    spine_switches: int
    core_switches: int
    nics: int
    transceivers: int
    cables: int
    power_kw: float  # switches and optics (NICs are in the host power)
    nic_power_kw: float
    capex_usd: float
    max_endpoints: int
    bom: list[BomEntry]
    warnings: list[str]


class PowerBreakdownKw(TypedDict):
    gpus: float
    hosts: float
    network: float
    storage: float
    cooling_overhead: float


class ProvisioningSection(TypedDict):
    """What a facility provisions (nameplate, not average draw), with the redundancy assumed."""

    redundancy: str  # "N" | "N+1" | "2N"
    node_nameplate_kw: float
    it_nameplate_kw: float
    facility_nameplate_kw: float
    feed_capacity_kw: float
    ups_capacity_kw: float
    generator_kva: float
    rack_pdus: int
    racks_from: str


class GpuPowerCapSection(TypedDict):
    """A GPU power limit below TDP and what it costs in throughput (facility/power.py power_cap_section)."""

    limit_w: float
    tdp_w: float  # the GPU's own TDP
    fraction_of_tdp: float
    throughput_fraction: float  # of uncapped throughput: every dense peak is scaled by it
    gpu_power_cut_kw: float  # nameplate GPU power removed from the whole cluster (GPUs x (TDP - limit))
    source: str


class PowerSection(TypedDict):
    it_kw: float
    facility_kw: float
    pue: float
    energy_mwh: float | None  # facility energy of the run; None without a run (inference)
    breakdown_kw: PowerBreakdownKw
    peak_it_kw: float
    racks: int
    rack_density_kw: float
    nodes_per_rack: int
    energy_mwh_per_year: float
    co2_t: float | None  # None without economics.grid_kgco2_per_kwh (or without a run)
    co2_t_per_year: float | None
    water_m3_per_year: float | None  # None when the cooling has no known water use
    provisioning: NotRequired[ProvisioningSection]  # nameplate, feeds, UPS, generators, redundancy
    gpu_power_cap: NotRequired[GpuPowerCapSection]  # only when cluster.gpu_power_limit_w is set


class CapexBreakdownUsd(TypedDict):
    servers: float
    network: float  # scale-out fabric
    storage: float
    facility: float
    frontend_network: float  # front-end / storage network
    management_network: float  # out-of-band management network
    spares: float  # spare nodes
    installation: float


class OpexBreakdownUsdPerYear(TypedDict):
    energy: float
    colocation: float
    maintenance: float
    staff: float
    software: float  # licences and support per GPU-year


class CostYear(TypedDict):
    year: int
    capex_usd: float
    opex_usd: float
    cumulative_usd: float
    depreciation_usd: float  # straight line: (capex - residual value) x share of the year / life
    book_value_usd: float  # capex less the depreciation so far, at the year's end
    residual_usd: float  # resale value credited in the last year (economics.residual_value_fraction)


class OwnVsRent(TypedDict):
    month: list[int]
    own_cumulative_usd: list[float]
    rent_cumulative_usd: list[float]


class TcoSection(TypedDict):
    """The cost of owning the cluster (facility/tco.py); `CostSection` adds the low/high ranges."""

    capex_usd: float
    opex_usd_per_year: float
    tco_usd: float
    usd_per_gpu_hour: float
    run_gpu_hours: float | None  # None without a run (inference)
    run_cost_usd: float | None
    cloud_run_cost_usd: float | None
    capex_breakdown_usd: CapexBreakdownUsd
    opex_breakdown_usd_per_year: OpexBreakdownUsdPerYear
    billed_energy_mwh_per_year: float
    utilised_gpu_hours: float
    rent_usd_over_life: float
    yearly: list[CostYear]
    breakeven_month: int | None  # None when renting stays cheaper over the whole life
    spare_nodes: int  # spare nodes bought (capex_breakdown_usd.spares)
    residual_value_usd: float  # hardware capex x economics.residual_value_fraction, credited at the end
    staff_fte: float  # operations staff counted in opex_breakdown_usd_per_year.staff
    monthly_own_vs_rent: OwnVsRent
    warnings: list[str]
    npv_usd: NotRequired[float]  # only with economics.discount_rate > 0
    usd_per_gpu_hour_discounted: NotRequired[float]


class CostSection(TcoSection):
    """The `cost` section, present when the input has `economics`. Owning costs the same whatever the time
    model's error, so the TCO range is the point value; the run costs get the time range."""

    tco_usd_low: float
    tco_usd_high: float
    run_cost_usd_low: float | None
    run_cost_usd_high: float | None
    cloud_run_cost_usd_low: NotRequired[float]  # only with a training time range
    cloud_run_cost_usd_high: NotRequired[float]


class StorageSection(TypedDict):
    """Shared storage: typed, or sized from the workload (checkpoints kept + dataset) with the write rate a
    checkpoint needs to finish in the goodput model's checkpoint write time."""

    tb: float
    sized_from: str  # "input" | "workload" | "none"
    checkpoint_tb: float | None
    checkpoints_kept: int | None
    dataset_tb: float | None
    write_gbs: float | None  # checkpoint size / checkpoint write time, GB/s
    source: str


class FacilitySections(TypedDict):
    network: NetworkSection
    power: PowerSection
    storage: NotRequired[StorageSection]
    cost: NotRequired[CostSection]


class TrainingSections(TypedDict):
    model: ModelSection
    parallelism: TrainingParallelismSection
    memory: MemorySection
    time: TimeSection | None  # None when the layout does not fit in GPU memory: a run that cannot start


# --- estimate -----------------------------------------------------------------------------------------------


class EstimateResult(TypedDict):
    """What `estimate` returns. Training adds model, parallelism, memory and time; inference model,
    parallelism, memory and inference; a job adds job."""

    engine_version: str
    kind: Kind
    model: NotRequired[ModelSection]
    parallelism: NotRequired[TrainingParallelismSection | InferenceParallelismSection]
    memory: NotRequired[MemorySection]
    time: NotRequired[TimeSection | None]
    storage: NotRequired[StorageSection]
    # The serving model's section (inference/continuous.py and the roofline's InferenceSection) is still
    # growing; it is typed here once it settles.
    inference: NotRequired[dict[str, Any]]
    job: NotRequired[JobSection]
    network: NetworkSection
    power: PowerSection
    cost: NotRequired[CostSection]
    assumptions: dict[str, Assumption]
    warnings: list[str]


# --- search -------------------------------------------------------------------------------------------------


class SearchConfig(TypedDict):
    gpu: str  # catalog id, or the name of a GPU given as an object
    nodes: int
    gpus: int
    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    virtual_stages: int
    micro_batch: int
    zero_stage: int
    recompute: Literal["none", "selective", "full"]
    sequence_parallel: bool
    flash_attention: bool | str
    dp_overlap: bool
    reshard_after_forward: bool
    hsdp: bool
    pipeline_split: str


class SearchEntry(TypedDict):
    config: SearchConfig
    step_s: float
    per_gpu_gib: float
    tokens_per_s: float
    mfu: float
    days: float
    gpu_hours: float
    tco_usd: float | None  # None without economics
    run_cost_usd: float | None


class ParetoEntry(TypedDict):
    config: SearchConfig
    days: float
    tco_usd: float | None
    gpu_hours: float


class SearchResult(TypedDict):
    """What `search` returns."""

    evaluated: int
    enumerated: int
    feasible: int
    elapsed_s: float
    objective: Literal["min_time", "min_cost"]
    cost_metric: Literal["tco_usd", "gpu_hours"]
    best: list[SearchEntry]
    pareto: list[ParetoEntry]
    warnings: list[str]
