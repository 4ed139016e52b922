"""The fleet input (docs/fleet-contract.md) -> FleetSpec; every problem named by its field path, unknown keys
rejected (inputs/fields.py), SpecError with all problems at once."""

from __future__ import annotations

import re
from typing import Any

from planner.engine.facility import power, tco
from planner.engine.fleet.mig import supports_mig
from planner.engine.fleet.spec import (
    PERIOD_KINDS,
    SHARING_MODES,
    WORKLOAD_KINDS,
    Economics,
    Facility,
    FleetSpec,
    Horizon,
    Pool,
    Team,
    Workload,
)
from planner.engine.inputs import prices
from planner.engine.inputs.cluster import PUE_MAX, PUE_MIN, resolve_gpu
from planner.engine.inputs.errors import Problem, SpecError
from planner.engine.inputs.fields import Fields
from planner.engine.inputs.units import HOURS_PER_YEAR, KW

TOP_KEYS = ("horizon", "pools", "teams", "workloads", "facility", "economics", "objective", "options")
HORIZON_KEYS = ("periods", "period", "start")
POOL_KEYS = (
    "id",
    "gpu",
    "gpus_per_node",
    "existing_nodes",
    "max_nodes",
    "mig",
    "time_slicing",
    "node_usd",
    "node_max_power_kw",
    "cloud_usd_per_gpu_hour",
)
TEAM_KEYS = ("id", "max_share", "max_gpus")
COMMON_KEYS = ("id", "team", "kind", "start_period", "deadline_period", "pools")
KIND_KEYS: dict[str, tuple[str, ...]] = {
    "training": ("model", "tokens_b", "precision", "parallelism", "reference_gpus"),
    "inference": (
        "model",
        "precision",
        "requests_per_s",
        "input_tokens",
        "output_tokens",
        "max_ttft_s",
        "max_tpot_s",
        "latency_percentile",
    ),
    "service": ("gpu_memory_gib", "gpu_share", "replicas"),
    "jobs": ("jobs_per_period", "gpus_per_job", "single_gpu_hours", "parallel_fraction", "measured_speedup"),
}
FACILITY_KEYS = ("power_mw", "racks", "cooling", "pue")
ECONOMICS_KEYS = (
    "budget_usd",
    "electricity_usd_per_kwh",
    "discount_rate",
    "life_years",
    "cloud_burst",
    "maintenance_fraction_per_year",
    "idle_power_fraction",
)
OPTION_KEYS = ("time_limit_s", "seed")
#: Cooling names the fleet contract's example uses, mapped to the engine's presets (facility/power.py).
COOLING_NAMES = {"liquid_direct_to_chip": "dlc_cold_plate", "direct_to_chip": "dlc_cold_plate"}
OBJECTIVES = ("min_tco",)
MAX_PERIODS = 60
MAX_POOLS = 32
MAX_WORKLOADS = 200
#: Most model sizings one plan may ask for (training and inference workloads x the pools each may use): each is a
#: layout search or a service sizing of 0.05-0.5 s of CPU, so this bounds the sizing to about a minute.
MAX_MODEL_SIZINGS = 160
#: Hours in one period: a year of 8,766 h (365.25 days) split evenly.
PERIODS_PER_YEAR = {"quarter": 4, "month": 12, "year": 1}
#: Wall-clock seconds HiGHS may take over both phases (and a quarter of it per limit re-solve). HiGHS finds a
#: near-optimal plan fast and spends the rest proving it (the training runs' pool choice weakens the bound); the
#: answer reports the status and the gap proven when the limit stops it.
TIME_LIMIT_S_DEFAULT = 6.0
_ID = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")


def per_period(
    f: Fields,
    key: str,
    periods: int,
    *,
    required: bool = False,
    default: float | None = None,
    integer: bool = False,
    minimum: float = 0.0,
    maximum: float | None = None,
    allow_null: bool = False,
) -> tuple[Any, ...] | None:
    """A per-period figure: one number for every period or a list of one per period (contract)."""
    if not f.has(key):
        if required:
            f.problem(key, "is required (a number or a list of one number per period)")
            return None
        return tuple([default] * periods)
    value = f.obj[key]
    if not isinstance(value, list):
        n = f.number(key, integer=integer, minimum=minimum, maximum=maximum)
        return None if n is None else tuple([n] * periods)
    if len(value) != periods:
        f.problem(key, f"must have one value per period ({periods}), got {len(value)}")
        return None
    item = Fields({str(i): v for i, v in enumerate(value)}, "", [], [str(i) for i in range(periods)])
    out: list[Any] = []
    ok = True
    for i, v in enumerate(value):
        if v is None and allow_null:
            out.append(None)
            continue
        item.problems = []
        n = item.number(str(i), integer=integer, minimum=minimum, maximum=maximum, required=True)
        for p in item.problems:
            f.problems.append(Problem(f"{f.path}.{key}[{i}]" if f.path else f"{key}[{i}]", p.message))
            ok = False
        out.append(n)
    return tuple(out) if ok else None


def _labels(start: str | None, period: str, periods: int, h: Fields) -> tuple[str, ...]:
    if start is None:
        return tuple(f"P{i + 1}" for i in range(periods))
    patterns = {"quarter": r"^(\d{4})-Q([1-4])$", "month": r"^(\d{4})-(0[1-9]|1[0-2])$", "year": r"^(\d{4})$"}
    m = re.match(patterns[period], start)
    if not m:
        examples = {"quarter": "2027-Q1", "month": "2027-01", "year": "2027"}
        h.problem("start", f"must look like '{examples[period]}' for period '{period}' (got '{start}')")
        return tuple(f"P{i + 1}" for i in range(periods))
    year = int(m.group(1))
    if period == "year":
        return tuple(str(year + i) for i in range(periods))
    first = int(m.group(2)) - 1
    n = PERIODS_PER_YEAR[period]
    fmt = "{y}-Q{k}" if period == "quarter" else "{y}-{k:02d}"
    return tuple(fmt.format(y=year + (first + i) // n, k=(first + i) % n + 1) for i in range(periods))


def _horizon(top: Fields) -> Horizon | None:
    h = top.child("horizon", HORIZON_KEYS, required=True)
    if h is None or not h.ok:
        return None
    periods = h.number("periods", required=True, integer=True, minimum=1, maximum=MAX_PERIODS)
    period = h.string("period", default="quarter", choices=PERIOD_KINDS)
    start = h.string("start")
    if periods is None or period is None:
        return None
    labels = _labels(start, period, periods, h)
    return Horizon(periods, period, start or "", HOURS_PER_YEAR / PERIODS_PER_YEAR[period], labels)


def _unique_id(f: Fields, seen: set[str]) -> str | None:
    ident = f.string("id", required=True)
    if ident is None:
        return None
    if not _ID.match(ident):
        f.problem("id", f"must be 1-64 letters, digits, '_', '-' or '.' (got '{ident}')")
        return None
    if ident in seen:
        f.problem("id", f"'{ident}' is used twice")
        return None
    seen.add(ident)
    return ident


def _pool(
    value: Any, path: str, problems: list[Problem], seen: set[str], assumptions: dict[str, Any]
) -> Pool | None:
    f = Fields(value, path, problems, POOL_KEYS)
    if not f.ok:
        return None
    ident = _unique_id(f, seen)
    gpu = resolve_gpu(f.raw("gpu"), f"{path}.gpu", problems, assumptions) if f.has("gpu") else None
    if not f.has("gpu"):
        f.problem("gpu", 'is required (a catalog id such as "nvidia_h100_sxm5_80gb" or a gpu object)')
    gpn = f.number("gpus_per_node", integer=True, minimum=1, maximum=1024, default=8)
    existing = f.number("existing_nodes", integer=True, minimum=0, maximum=1_000_000, default=0)
    max_nodes = f.number("max_nodes", integer=True, minimum=0, maximum=1_000_000)
    mig = f.boolean("mig", default=False)
    slicing = f.boolean("time_slicing", default=False)
    node_usd = f.number("node_usd", minimum=0)
    node_max_kw = f.number("node_max_power_kw", above=0)
    cloud = f.number("cloud_usd_per_gpu_hour", minimum=0)
    if existing is not None and max_nodes is not None and existing > max_nodes:
        f.problem("max_nodes", f"must be at least existing_nodes ({existing}) (got {max_nodes})")
    gpu_id = f.raw("gpu") if isinstance(f.raw("gpu"), str) else None
    if gpu is None or ident is None or gpn is None or existing is None or mig is None or slicing is None:
        return None
    if mig and slicing:
        f.problem("time_slicing", "choose MIG or time-slicing for a pool, not both")
        return None
    if mig and not supports_mig(gpu_id):
        f.problem("mig", f"{gpu.name} has no MIG profiles (A100, H100, H200 and B200 do)")
        return None
    sharing = SHARING_MODES[1] if mig else (SHARING_MODES[2] if slicing else SHARING_MODES[0])
    if node_usd is None and gpu.price_usd is not None:
        node_usd = prices.node_usd_from_gpu(gpn, gpu.price_usd)
        assumptions[f"{path}.node_usd"] = {
            "value": node_usd,
            "unit": "USD per node",
            "source": f"{gpn} x (catalog GPU price + host parts per GPU slot); host parts: {prices.HOST_BOM_SOURCE}",
        }
    if cloud is None and gpu_id in prices.CLOUD_PRICE_REFERENCES:
        ref = prices.CLOUD_PRICE_REFERENCES[gpu_id]
        cloud = ref.usd_per_gpu_hour
        assumptions[f"{path}.cloud_usd_per_gpu_hour"] = {
            "value": cloud,
            "unit": "USD per GPU-hour",
            "source": f"{ref.source}: range ${ref.low_usd:.2f}-${ref.high_usd:.2f}",
        }
    inputs = power.PowerInputs(
        nodes=1,
        gpus_per_node=gpn,
        gpu_tdp_w=gpu.tdp_w,
        node_max_power_w=None if node_max_kw is None else node_max_kw * KW,
    )
    gpus_w, host_w = power.node_it_power_w(inputs)
    return Pool(
        ident,
        gpu_id,
        gpu,
        gpn,
        existing,
        max_nodes,
        sharing,
        node_usd,
        cloud,
        gpus_w + host_w,
        power.node_peak_power_w(inputs),
    )


def _team(value: Any, path: str, problems: list[Problem], seen: set[str], pool_ids: set[str]) -> Team | None:
    f = Fields(value, path, problems, TEAM_KEYS)
    if not f.ok:
        return None
    ident = _unique_id(f, seen)
    share = f.number("max_share", minimum=0, maximum=1)
    caps: dict[str, int] = {}
    g = f.child("max_gpus", sorted(pool_ids) or ["(no pools)"])
    if g is not None and g.ok:
        for key in g.obj:
            if key in pool_ids:
                n = g.number(key, integer=True, minimum=0)
                if n is not None:
                    caps[key] = n
    return None if ident is None else Team(ident, share, caps)


def _period_index(f: Fields, key: str, periods: int, default: int) -> int | None:
    return f.number(key, integer=True, minimum=0, maximum=periods - 1, default=default)


def _workload(
    value: Any, path: str, problems: list[Problem], seen: set[str], periods: int, pool_ids: set[str]
) -> Workload | None:
    kind = value.get("kind") if isinstance(value, dict) else None
    allowed = COMMON_KEYS + (
        KIND_KEYS[kind] if kind in KIND_KEYS else tuple(k for ks in KIND_KEYS.values() for k in ks)
    )
    f = Fields(value, path, problems, allowed)
    if not f.ok:
        return None
    ident = _unique_id(f, seen)
    kind = f.string("kind", required=True, choices=WORKLOAD_KINDS)
    team = f.string("team")
    start = _period_index(f, "start_period", periods, 0)
    deadline = _period_index(f, "deadline_period", periods, periods - 1)
    if start is not None and deadline is not None and deadline < start:
        f.problem("deadline_period", f"must not be before start_period (got {deadline} < {start})")
    allowed_pools: tuple[str, ...] = ()
    if f.has("pools"):
        raw = f.obj["pools"]
        if not isinstance(raw, list) or not raw or not all(isinstance(p, str) for p in raw):
            f.problem("pools", "must be a non-empty list of pool ids")
        else:
            unknown = [p for p in raw if p not in pool_ids]
            if unknown:
                f.problem(
                    "pools", f"unknown pool id(s) {', '.join(unknown)} (known: {', '.join(sorted(pool_ids))})"
                )
            allowed_pools = tuple(raw)
    if ident is None or kind is None or start is None or deadline is None:
        return None
    extra: dict[str, Any] = {}
    if kind == "service":
        extra["gpu_memory_gib"] = f.number("gpu_memory_gib", required=True, above=0)
        extra["gpu_share"] = f.number("gpu_share", required=True, above=0, maximum=64)
        extra["replicas"] = per_period(f, "replicas", periods, required=True, integer=True, maximum=1e6)
    elif kind == "jobs":
        extra["jobs_per_period"] = per_period(f, "jobs_per_period", periods, required=True, maximum=1e7)
        extra["gpus_per_job"] = f.number("gpus_per_job", integer=True, minimum=1, maximum=65536, default=1)
        extra["single_gpu_hours"] = f.number("single_gpu_hours", required=True, above=0)
        fraction = f.number("parallel_fraction", minimum=0, maximum=1)
        speedup = f.number("measured_speedup", above=0)
        gpus = extra["gpus_per_job"]
        if fraction is None and speedup is not None and gpus:
            if speedup > gpus:
                f.problem("measured_speedup", f"must not exceed gpus_per_job ({gpus}) (got {speedup})")
            elif gpus > 1:
                fraction = (1 - 1 / speedup) / (1 - 1 / gpus)  # Amdahl's law solved for p
            else:
                fraction = 1.0
        if fraction is None and not f.has("parallel_fraction") and not f.has("measured_speedup"):
            f.problem("parallel_fraction", "is required (or give measured_speedup at gpus_per_job)")
        extra["parallel_fraction"] = fraction
    elif kind == "inference":
        extra["requests_per_s"] = per_period(f, "requests_per_s", periods, required=True, maximum=1e7)
        for key in ("input_tokens", "output_tokens"):
            f.number(key, required=True, integer=True, minimum=1, maximum=10_000_000)
        f.number("max_ttft_s", above=0)
        f.number("max_tpot_s", above=0)
        if not f.has("model"):
            f.problem("model", 'is required (a preset name such as "llama3.1-70b" or a model object)')
    else:
        f.number("tokens_b", required=True, above=0)
        f.number("reference_gpus", integer=True, minimum=1, maximum=1_000_000)
        if not f.has("model"):
            f.problem("model", 'is required (a preset name such as "llama3.1-70b" or a model object)')
    if any(v is None for v in extra.values()):
        return None
    return Workload(
        id=ident,
        team=team,
        kind=kind,
        start_period=start,
        deadline_period=deadline,
        raw=dict(f.obj),
        pools=allowed_pools,
        **extra,
    )


def _facility(top: Fields, periods: int, assumptions: dict[str, Any]) -> Facility | None:
    f = top.child("facility", FACILITY_KEYS) or Fields({}, "facility", top.problems, FACILITY_KEYS)
    if not f.ok:
        return None
    mw = per_period(f, "power_mw", periods, allow_null=True, maximum=1e5)
    racks = per_period(f, "racks", periods, allow_null=True, integer=True, maximum=1e7)
    known = (*power.COOLING_PRESETS, *power.COOLING_ALIASES, *COOLING_NAMES)
    name = f.string("cooling", default="air_crac_crah", choices=known)
    pue = f.number("pue", minimum=PUE_MIN, maximum=PUE_MAX)
    if mw is None or racks is None or name is None:
        return None
    cooling = power.cooling_preset(COOLING_NAMES.get(name, name))
    if pue is None:
        pue = cooling.pue if cooling.pue is not None else power.PUE_DEFAULT
        assumptions["facility.pue"] = {"value": pue, "unit": "ratio", "source": cooling.pue_source}
    assumptions["facility.rack_density_kw"] = {
        "value": cooling.rack_density_w / KW,
        "unit": "kW per rack",
        "source": cooling.rack_density_source,
    }
    power_w = tuple(None if v is None else v * 1e6 for v in mw)
    return Facility(power_w, racks, name, pue, cooling.rack_density_w)


def _economics(top: Fields, periods: int, assumptions: dict[str, Any]) -> Economics | None:
    e = top.child("economics", ECONOMICS_KEYS) or Fields({}, "economics", top.problems, ECONOMICS_KEYS)
    if not e.ok:
        return None
    budget = per_period(e, "budget_usd", periods, allow_null=True)
    price = e.number("electricity_usd_per_kwh", minimum=0)
    if price is None and not e.has("electricity_usd_per_kwh"):
        price = tco.ELECTRICITY_USD_PER_KWH_DEFAULT
        assumptions["economics.electricity_usd_per_kwh"] = {
            "value": price,
            "unit": "USD per kWh",
            "source": tco.ELECTRICITY_SOURCE,
        }
    rate = e.number("discount_rate", minimum=0, below=1, default=0.0)
    life = e.number("life_years", above=0, maximum=50, default=tco.YEARS_DEFAULT)
    burst = e.boolean("cloud_burst", default=False)
    maint = e.number(
        "maintenance_fraction_per_year",
        minimum=0,
        maximum=1,
        default=tco.MAINTENANCE_FRACTION_PER_YEAR_DEFAULT,
    )
    idle = e.number("idle_power_fraction", minimum=0, maximum=1, default=tco.IDLE_POWER_FRACTION_DEFAULT)
    if None in (budget, price, rate, life, burst, maint, idle):
        return None
    if not e.has("maintenance_fraction_per_year"):
        assumptions["economics.maintenance_fraction_per_year"] = {
            "value": maint,
            "unit": "fraction of capex per year",
            "source": tco.NOT_SOURCED,
        }
    if not e.has("idle_power_fraction"):
        assumptions["economics.idle_power_fraction"] = {
            "value": idle,
            "unit": "fraction",
            "source": tco.NOT_SOURCED,
        }
    return Economics(budget, price, rate, life, bool(burst), maint, idle)  # type: ignore[arg-type]


def _list(top: Fields, key: str, required: bool, limit: int) -> list[Any]:
    raw = top.raw(key)
    if raw is None:
        if required:
            top.problem(key, "is required (a non-empty list)")
        return []
    if not isinstance(raw, list) or (required and not raw):
        top.problem(key, "must be a non-empty list" if required else "must be a list")
        return []
    if len(raw) > limit:
        top.problem(key, f"at most {limit} entries")
        return []
    return raw


def _check_sizings(top: Fields, workloads: list[Workload], pools: int) -> None:
    sizings = sum(len(w.pools) or pools for w in workloads if w.kind in ("training", "inference"))
    if sizings > MAX_MODEL_SIZINGS:
        top.problem(
            "workloads",
            f"asks for {sizings} model sizings (training and inference workloads x the pools each may use); at "
            f"most {MAX_MODEL_SIZINGS}: restrict workloads[].pools or plan in parts",
        )


def parse_fleet(payload: Any) -> FleetSpec:
    """Validate the fleet input; SpecError lists every problem with its field path."""
    problems: list[Problem] = []
    assumptions: dict[str, Any] = {}
    top = Fields(payload, "", problems, TOP_KEYS)
    if not top.ok:
        raise SpecError(problems)
    horizon = _horizon(top)
    periods = horizon.periods if horizon else 1
    seen: set[str] = set()
    pools = [
        _pool(v, f"pools[{i}]", problems, seen, assumptions)
        for i, v in enumerate(_list(top, "pools", True, MAX_POOLS))
    ]
    pool_ids = {p.id for p in pools if p is not None}
    seen = set()
    teams = [
        _team(v, f"teams[{i}]", problems, seen, pool_ids)
        for i, v in enumerate(_list(top, "teams", False, 100))
    ]
    seen = set()
    workloads = [
        _workload(v, f"workloads[{i}]", problems, seen, periods, pool_ids)
        for i, v in enumerate(_list(top, "workloads", True, MAX_WORKLOADS))
    ]
    _check_sizings(top, [w for w in workloads if w is not None], len(pool_ids))
    facility = _facility(top, periods, assumptions)
    economics = _economics(top, periods, assumptions)
    objective = top.string("objective", default="min_tco", choices=OBJECTIVES)
    o = top.child("options", OPTION_KEYS) or Fields({}, "options", problems, OPTION_KEYS)
    limit = o.number("time_limit_s", above=0, maximum=3600, default=TIME_LIMIT_S_DEFAULT)
    seed = o.number("seed", integer=True, minimum=0, default=0)
    if problems or horizon is None or facility is None or economics is None:
        raise SpecError(problems or [Problem("(input)", "is invalid")])
    return FleetSpec(
        horizon=horizon,
        pools=tuple(p for p in pools if p is not None),
        teams=tuple(t for t in teams if t is not None),
        workloads=tuple(w for w in workloads if w is not None),
        facility=facility,
        economics=economics,
        objective=objective or "min_tco",
        time_limit_s=float(limit),
        seed=int(seed),
        assumptions=assumptions,
    )
