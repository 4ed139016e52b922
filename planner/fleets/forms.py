"""The fleet page's editable tables (pools, teams, workloads as formsets) and settings, turned into the engine's
fleet input and back. The forms only shape the input; the engine validates it (planner.engine.fleet.parse) and
its field paths are put back on the table cell they name (`add_spec_errors`)."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.forms import formset_factory

from planner.engine.facility import power
from planner.engine.fleet.spec import PERIOD_KINDS, WORKLOAD_KINDS
from planner.engine.inputs import catalog
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.presets import PRESETS

SHARING = (("whole", "whole GPUs"), ("mig", "MIG"), ("time_slicing", "time-slicing"))
DEMAND_KEY = {"inference": "requests_per_s", "service": "replicas", "jobs": "jobs_per_period"}
_NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def gpu_choices() -> list[tuple[str, str]]:
    return [(gid, row.get("model") or gid) for gid, row in catalog.gpu_rows().items()]


def parse_series(text: str) -> Any:
    """'5, 10, 20' -> [5, 10, 20]; '14' -> 14; '' -> None; 'none' items -> None (no limit). Bad items are kept as
    text so the engine names them."""
    text = (text or "").strip()
    if not text:
        return None
    items = [t.strip() for t in re.split(r"[,\s;]+", text) if t.strip()]
    values: list[Any] = []
    for item in items:
        if item.lower() in ("none", "null", "-"):
            values.append(None)
        elif _NUMBER.match(item):
            number = float(item)
            values.append(int(number) if number.is_integer() else number)
        else:
            values.append(item)
    return values[0] if len(values) == 1 else values


def show_series(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join("none" if v is None else f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


class SettingsForm(forms.Form):
    name = forms.CharField(max_length=200, initial="Fleet plan")
    periods = forms.IntegerField(min_value=1, max_value=60, initial=8)
    period = forms.ChoiceField(choices=[(p, p) for p in PERIOD_KINDS], initial="quarter")
    start = forms.CharField(required=False, max_length=10, help_text="2027-Q1, 2027-01 or 2027")
    power_mw = forms.CharField(required=False, label="Facility MW", help_text="one number or one per period")
    racks = forms.CharField(required=False, help_text="one number or one per period")
    cooling = forms.ChoiceField(choices=[(c, c) for c in power.COOLING_PRESETS], initial="air_crac_crah")
    budget_usd = forms.CharField(
        required=False, label="Budget USD", help_text="capex per period; 'none' = no limit"
    )
    electricity_usd_per_kwh = forms.FloatField(required=False, min_value=0)
    discount_rate = forms.FloatField(required=False, min_value=0, max_value=0.99, initial=0.08)
    life_years = forms.FloatField(required=False, min_value=0.1, initial=5)
    cloud_burst = forms.BooleanField(required=False)


class PoolForm(forms.Form):
    pool_id = forms.CharField(required=False, max_length=64, label="Pool")
    gpu = forms.ChoiceField(choices=gpu_choices, required=False)
    gpus_per_node = forms.IntegerField(required=False, min_value=1, initial=8)
    existing_nodes = forms.IntegerField(required=False, min_value=0)
    max_nodes = forms.IntegerField(required=False, min_value=0)
    sharing = forms.ChoiceField(choices=SHARING, initial="whole")
    node_usd = forms.FloatField(required=False, min_value=0)
    cloud_usd_per_gpu_hour = forms.FloatField(required=False, min_value=0)


class TeamForm(forms.Form):
    team_id = forms.CharField(required=False, max_length=64, label="Team")
    max_share = forms.FloatField(required=False, min_value=0, max_value=1)
    max_gpus = forms.CharField(required=False, help_text="pool:GPUs, e.g. h100:64, a100:16")


class WorkloadForm(forms.Form):
    workload_id = forms.CharField(required=False, max_length=64, label="Workload")
    team = forms.CharField(required=False, max_length=64)
    kind = forms.ChoiceField(choices=[(k, k) for k in WORKLOAD_KINDS])
    model = forms.ChoiceField(choices=[("", "")] + [(p, p) for p in PRESETS], required=False)
    demand = forms.CharField(required=False, help_text="requests/s, replicas or jobs per period")
    precision = forms.ChoiceField(
        choices=[("", ""), ("bf16", "bf16"), ("fp8", "fp8"), ("fp16", "fp16")], required=False
    )
    tokens_b = forms.FloatField(required=False, min_value=0)
    start_period = forms.IntegerField(required=False, min_value=0)
    deadline_period = forms.IntegerField(required=False, min_value=0)
    input_tokens = forms.IntegerField(required=False, min_value=1)
    output_tokens = forms.IntegerField(required=False, min_value=1)
    max_ttft_s = forms.FloatField(required=False, min_value=0)
    max_tpot_s = forms.FloatField(required=False, min_value=0)
    gpu_memory_gib = forms.FloatField(required=False, min_value=0)
    gpu_share = forms.FloatField(required=False, min_value=0)
    gpus_per_job = forms.IntegerField(required=False, min_value=1)
    single_gpu_hours = forms.FloatField(required=False, min_value=0)
    parallel_fraction = forms.FloatField(required=False, min_value=0, max_value=1)


PoolFormSet = formset_factory(PoolForm, extra=2)
TeamFormSet = formset_factory(TeamForm, extra=1)
WorkloadFormSet = formset_factory(WorkloadForm, extra=2)
KIND_FIELDS = {
    "training": ("model", "precision", "tokens_b", "start_period", "deadline_period"),
    "inference": ("model", "precision", "input_tokens", "output_tokens", "max_ttft_s", "max_tpot_s"),
    "service": ("gpu_memory_gib", "gpu_share"),
    "jobs": ("gpus_per_job", "single_gpu_hours", "parallel_fraction"),
}


class FleetForms:
    """The settings form and the three tables, bound or initial, with the payload they make."""

    def __init__(self, data: Any = None, payload: dict[str, Any] | None = None, name: str = "") -> None:
        initial = initial_from_payload(payload or {}, name)
        self.settings = SettingsForm(data, initial=initial["settings"])
        self.pools = PoolFormSet(data, prefix="pools", initial=initial["pools"])
        self.teams = TeamFormSet(data, prefix="teams", initial=initial["teams"])
        self.workloads = WorkloadFormSet(data, prefix="workloads", initial=initial["workloads"])
        self.rows: dict[str, list[int]] = {"pools": [], "teams": [], "workloads": []}

    def is_valid(self) -> bool:
        return all(f.is_valid() for f in (self.settings, self.pools, self.teams, self.workloads))

    @property
    def name(self) -> str:
        return str(self.settings.cleaned_data["name"])

    def payload(self) -> dict[str, Any]:
        s = self.settings.cleaned_data
        horizon: dict[str, Any] = {"periods": s["periods"], "period": s["period"]}
        if s.get("start"):
            horizon["start"] = s["start"]
        facility: dict[str, Any] = {"cooling": s["cooling"]}
        for key in ("power_mw", "racks"):
            if parse_series(s.get(key)) is not None:
                facility[key] = parse_series(s[key])
        economics: dict[str, Any] = {"cloud_burst": bool(s.get("cloud_burst"))}
        if parse_series(s.get("budget_usd")) is not None:
            economics["budget_usd"] = parse_series(s["budget_usd"])
        for key in ("electricity_usd_per_kwh", "discount_rate", "life_years"):
            if s.get(key) is not None:
                economics[key] = s[key]
        return {
            "horizon": horizon,
            "pools": self._pools(),
            "teams": self._teams(),
            "workloads": self._workloads(),
            "facility": facility,
            "economics": economics,
        }

    def _pools(self) -> list[dict[str, Any]]:
        out = []
        for i, form in enumerate(self.pools.forms):
            d = form.cleaned_data
            if not d.get("pool_id"):
                continue
            self.rows["pools"].append(i)
            pool: dict[str, Any] = {"id": d["pool_id"], "gpu": d.get("gpu") or ""}
            for key in ("gpus_per_node", "existing_nodes", "max_nodes", "node_usd", "cloud_usd_per_gpu_hour"):
                if d.get(key) is not None:
                    pool[key] = d[key]
            if d.get("sharing") == "mig":
                pool["mig"] = True
            elif d.get("sharing") == "time_slicing":
                pool["time_slicing"] = True
            out.append(pool)
        return out

    def _teams(self) -> list[dict[str, Any]]:
        out = []
        for i, form in enumerate(self.teams.forms):
            d = form.cleaned_data
            if not d.get("team_id"):
                continue
            self.rows["teams"].append(i)
            team: dict[str, Any] = {"id": d["team_id"]}
            if d.get("max_share") is not None:
                team["max_share"] = d["max_share"]
            caps = {}
            for part in (d.get("max_gpus") or "").split(","):
                if ":" in part:
                    pool, _, n = part.partition(":")
                    value = parse_series(n)
                    caps[pool.strip()] = value
            if caps:
                team["max_gpus"] = caps
            out.append(team)
        return out

    def _workloads(self) -> list[dict[str, Any]]:
        out = []
        for i, form in enumerate(self.workloads.forms):
            d = form.cleaned_data
            if not d.get("workload_id"):
                continue
            self.rows["workloads"].append(i)
            kind = d["kind"]
            w: dict[str, Any] = {"id": d["workload_id"], "kind": kind}
            if d.get("team"):
                w["team"] = d["team"]
            if kind in DEMAND_KEY and parse_series(d.get("demand")) is not None:
                w[DEMAND_KEY[kind]] = parse_series(d["demand"])
            for key in KIND_FIELDS[kind]:
                if d.get(key) not in (None, ""):
                    w[key] = d[key]
            out.append(w)
        return out

    def add_spec_errors(self, err: SpecError) -> None:
        """Each engine problem on the cell its path names, else on the settings form."""
        for problem in err.problems:
            if not self._place(problem.path, problem.message):
                self.settings.add_error(None, f"{problem.path}: {problem.message}")

    def _place(self, path: str, message: str) -> bool:
        m = re.match(r"^(pools|teams|workloads)\[(\d+)\]\.?([A-Za-z_]*)", path)
        if m:
            table, index, key = m.group(1), int(m.group(2)), m.group(3)
            rows = self.rows[table]
            if index >= len(rows):
                return False
            formset = getattr(self, table)
            form = formset.forms[rows[index]]
            field = _cell(table, key)
            if field not in form.fields:
                form.add_error(None, f"{key or table}: {message}")
            else:
                form.add_error(field, message)
            return True
        m = re.match(r"^(horizon|facility|economics)\.([A-Za-z_]+)", path)
        if m and m.group(2) in self.settings.fields:
            self.settings.add_error(m.group(2), message)
            return True
        return False


def _cell(table: str, key: str) -> str:
    if key == "id":
        return {"pools": "pool_id", "teams": "team_id", "workloads": "workload_id"}[table]
    if key in ("mig", "time_slicing"):
        return "sharing"
    if key in DEMAND_KEY.values():
        return "demand"
    return key


def initial_from_payload(payload: dict[str, Any], name: str = "") -> dict[str, Any]:
    h, f, e = payload.get("horizon") or {}, payload.get("facility") or {}, payload.get("economics") or {}
    settings = {
        "name": name or "Fleet plan",
        "periods": h.get("periods", 8),
        "period": h.get("period", "quarter"),
        "start": h.get("start", ""),
        "power_mw": show_series(f.get("power_mw")),
        "racks": show_series(f.get("racks")),
        "cooling": f.get("cooling", "air_crac_crah"),
        "budget_usd": show_series(e.get("budget_usd")),
        "electricity_usd_per_kwh": e.get("electricity_usd_per_kwh"),
        "discount_rate": e.get("discount_rate", 0.08 if not payload else None),
        "life_years": e.get("life_years", 5 if not payload else None),
        "cloud_burst": e.get("cloud_burst", False),
    }
    pools = []
    for p in payload.get("pools") or []:
        sharing = "mig" if p.get("mig") else "time_slicing" if p.get("time_slicing") else "whole"
        pools.append(
            {
                "pool_id": p.get("id"),
                "sharing": sharing,
                **{k: p.get(k) for k in PoolForm.base_fields if k in p},
            }
        )
    teams = [
        {
            "team_id": t.get("id"),
            "max_share": t.get("max_share"),
            "max_gpus": ", ".join(f"{k}:{v}" for k, v in (t.get("max_gpus") or {}).items()),
        }
        for t in payload.get("teams") or []
    ]
    workloads = []
    for w in payload.get("workloads") or []:
        row = {k: w.get(k) for k in WorkloadForm.base_fields if k in w}
        row["workload_id"] = w.get("id")
        row["demand"] = show_series(w.get(DEMAND_KEY.get(w.get("kind", ""), ""), None))
        workloads.append(row)
    return {"settings": settings, "pools": pools, "teams": teams, "workloads": workloads}
