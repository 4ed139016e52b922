"""Sweep chunk evaluation: every valid layout of a chunk's pieces with its memory, time, cost and energy, as
per-configuration column arrays (`ROW_COLUMNS`), and their stored form (sweep/__init__.py has the overview).

Stored precision (`pack_rows`): degrees, counts and flags are exact integers; per-configuration figures are
float32, i.e. a relative error of at most 2^-24 ~ 6e-8 (about 7 significant digits: USD 6 on USD 100 M). The
ranked rows in a chunk summary keep full float64 precision.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, replace
from time import perf_counter
from typing import Any

import numpy as np

from planner.engine.facility.sections import facility_sections
from planner.engine.inputs.errors import SpecError
from planner.engine.inputs.scenario import Scenario
from planner.engine.inputs.units import DAY, KW, MW, MWH
from planner.engine.search.layouts import enumerate_layouts, evaluate_layouts, layout_arrays
from planner.engine.search.sweep.plan import DEGREES, scenario_for
from planner.engine.transformer.shape import shape_of

#: zlib level of the stored rows (1-9; 3 measured fastest per byte saved on sweep rows).
PACK_COMPRESS_LEVEL = 3
#: enumerate_layouts' own guard is not needed here: the plan bounds every piece by the chunk size.
_NO_LAYOUT_LIMIT = 2**62

#: Per-configuration columns (key, unit) in the order of the stored rows and of exports.
ROW_COLUMNS: tuple[tuple[str, str], ...] = (
    ("gpu", "index into the sweep's GPU list"),
    ("nodes", "nodes"),
    ("gpus", "GPUs"),
    ("tp", ""),
    ("pp", ""),
    ("dp", ""),
    ("cp", ""),
    ("ep", ""),
    ("virtual_stages", ""),
    ("micro_batch", "sequences"),
    ("zero_stage", ""),
    ("recompute", "0 none, 1 selective, 2 full"),
    ("feasible", "fits in GPU memory"),
    ("per_gpu_gib", "GiB"),
    ("step_s", "s"),
    ("mfu", "fraction"),
    ("days", "days"),
    ("tco_usd", "USD"),
    ("capex_usd", "USD"),
    ("run_cost_usd", "USD"),
    ("energy_mwh", "MWh"),
    ("facility_mw", "MW"),
    ("racks", "racks"),
)
_INT8 = ("zero_stage", "recompute")
FLOAT_COLUMNS = (
    "per_gpu_gib",
    "step_s",
    "mfu",
    "days",
    "tco_usd",
    "capex_usd",
    "run_cost_usd",
    "energy_mwh",
    "facility_mw",
)


def _stored_dtype(key: str) -> Any:
    if key == "feasible":
        return np.bool_
    if key in _INT8:
        return np.int8
    return np.float32 if key in FLOAT_COLUMNS else np.int32


@dataclass(frozen=True)
class ChunkResult:
    rows: dict[str, np.ndarray]  # ROW_COLUMNS, full precision
    enumerated: int
    evaluate_s: float

    @property
    def evaluated(self) -> int:
        return len(self.rows["gpu"])


@dataclass(frozen=True)
class _ClusterFacts:
    tco_usd: float
    capex_usd: float
    usd_per_gpu_hour: float
    facility_w: float
    racks: int


def _cluster_facts(sc: Scenario) -> _ClusterFacts:
    """Cost and power of one cluster, from the facility sections `estimate` uses (independent of the layout)."""
    out = facility_sections(sc, None, None, [], {})
    cost = out.get("cost")
    if cost is None:
        raise SpecError.at("economics", "a sweep needs economics (server price) to rank by cost")
    return _ClusterFacts(
        tco_usd=float(cost["tco_usd"]),
        capex_usd=float(cost["capex_usd"]),
        usd_per_gpu_hour=float(cost["usd_per_gpu_hour"]),
        facility_w=float(out["power"]["facility_kw"]) * KW,
        racks=int(out["power"]["racks"]),
    )


def evaluate_chunk(spec: dict[str, Any], chunk: dict[str, Any]) -> ChunkResult:
    """Every valid layout of the chunk's pieces, with its memory, time, cost and energy (float64)."""
    started = perf_counter()
    parts: list[dict[str, np.ndarray]] = []
    scenarios: dict[int, Scenario] = {}
    enumerated = 0
    for piece in chunk["pieces"]:
        gi, nodes = int(piece["gpu"]), int(piece["nodes"])
        if gi not in scenarios:
            scenarios[gi] = scenario_for(spec, gi, nodes)
        sc = scenarios[gi]
        assert sc.model is not None and sc.tokens is not None and sc.search is not None
        csc = replace(sc, cluster=replace(sc.cluster, nodes=nodes))
        gpus = csc.cluster.gpus
        space = {**sc.search.get("space", {}), **piece["fix"]}
        batch = sc.parallelism.global_batch
        grid, size = enumerate_layouts(sc.model, space, gpus, batch, _NO_LAYOUT_LIMIT)
        enumerated += size
        n = len(grid["tp"])
        if n == 0:
            continue
        lay = layout_arrays(grid, sc.parallelism)
        res = evaluate_layouts(csc, shape_of(sc.model), lay)
        facts = _cluster_facts(csc)
        total_s = res["days"] * DAY
        ones = np.ones(n)
        parts.append(
            {
                "gpu": np.full(n, gi),
                "nodes": np.full(n, nodes),
                "gpus": np.full(n, gpus),
                **{k: grid[k] for k in DEGREES},
                "feasible": np.asarray(res["fits"], dtype=bool) & np.ones(n, dtype=bool),
                "per_gpu_gib": res["per_gpu_gib"] * ones,
                "step_s": res["step_s"] * ones,
                "mfu": res["mfu"] * ones,
                "days": res["days"] * ones,
                "tco_usd": facts.tco_usd * ones,
                "capex_usd": facts.capex_usd * ones,
                # tco.TcoResult.as_dict: run cost = run GPU-hours x TCO per utilised GPU-hour.
                "run_cost_usd": res["gpu_hours"] * facts.usd_per_gpu_hour,
                # power.PowerResult.as_dict: run energy = facility power x run time.
                "energy_mwh": facts.facility_w * total_s / MWH,
                "facility_mw": facts.facility_w / MW * ones,
                "racks": np.full(n, facts.racks),
            }
        )
    rows = (
        {key: np.concatenate([p[key] for p in parts]) for key, _ in ROW_COLUMNS} if parts else _empty_rows()
    )
    return ChunkResult(rows=rows, enumerated=enumerated, evaluate_s=perf_counter() - started)


def _empty_rows() -> dict[str, np.ndarray]:
    return {key: np.zeros(0, dtype=_stored_dtype(key)) for key, _ in ROW_COLUMNS}


def pack_rows(rows: dict[str, np.ndarray]) -> bytes:
    """The rows as .npz bytes (what np.savez_compressed writes, read back by np.load), in the dtypes of
    `_stored_dtype` (exact ints, float32 figures). Deflate level 3 instead of savez_compressed's 6: half the
    time for 5% more bytes (~8.5 bytes per configuration)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=PACK_COMPRESS_LEVEL) as archive:
        for key, _ in ROW_COLUMNS:
            with archive.open(f"{key}.npy", "w", force_zip64=True) as handle:
                np.lib.format.write_array(
                    handle, np.asarray(rows[key]).astype(_stored_dtype(key)), allow_pickle=False
                )
    return buffer.getvalue()


def unpack_rows(blob: bytes | memoryview) -> dict[str, np.ndarray]:
    """The column arrays of a stored chunk (BytesIO copies a memoryview once; no extra bytes() copy)."""
    with np.load(io.BytesIO(blob), allow_pickle=False) as data:
        return {key: data[key] for key, _ in ROW_COLUMNS}
