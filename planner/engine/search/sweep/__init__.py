"""Sweeps: which cluster to buy. A deterministic plan over GPU models x node counts x parallel layouts, split into
chunks that workers evaluate independently, and a merge of the chunks' summaries into the ranked result.

Every number comes from the engine's own functions: layouts are enumerated and filtered by
`search.layouts.enumerate_layouts` (the rules of inputs/parallelism.layout_problems), evaluated by
`search.layouts.evaluate_layouts` (the elementwise memory/time/goodput formulas `estimate` uses) and costed per
cluster by `facility.sections.facility_sections` (network, power, TCO), so each configuration's figures equal
`estimate` on that configuration.

Vocabulary, as in search/layouts.py: the *space* of a cluster is the Cartesian product of its candidate degrees
(enumerated); the *evaluated* configurations are the layouts of that product that pass the layout rules;
*feasible* ones fit in GPU memory; *eligible* ones are feasible and meet the sweep's constraints.

The code lives in three modules, re-exported here (callers import `planner.engine.search.sweep`): `plan` (spec
checks, the engine input of one cluster, the plan and its chunks), `rows` (chunk evaluation and the stored rows)
and `rank` (chunk summaries and the merged, ranked result).
"""

from planner.engine.search.sweep.plan import (
    CHUNK_CONFIGS_DEFAULT,
    CONSTRAINTS,
    DEGREES,
    FIXED_PARALLELISM,
    MAX_NODE_COUNTS,
    OBJECTIVE_LABELS,
    OBJECTIVES,
    TOP_N_DEFAULT,
    SweepPlan,
    payload_for,
    plan_sweep,
    scenario_for,
    size_message,
)
from planner.engine.search.sweep.rank import (
    cluster_best,
    eligible_mask,
    merge_summaries,
    pareto_front,
    rows_per_cluster,
    summarize_chunk,
)
from planner.engine.search.sweep.rows import ROW_COLUMNS, ChunkResult, evaluate_chunk, pack_rows, unpack_rows

__all__ = [
    "CHUNK_CONFIGS_DEFAULT",
    "CONSTRAINTS",
    "DEGREES",
    "FIXED_PARALLELISM",
    "MAX_NODE_COUNTS",
    "OBJECTIVES",
    "OBJECTIVE_LABELS",
    "ROW_COLUMNS",
    "TOP_N_DEFAULT",
    "SweepPlan",
    "ChunkResult",
    "plan_sweep",
    "payload_for",
    "scenario_for",
    "size_message",
    "evaluate_chunk",
    "pack_rows",
    "unpack_rows",
    "eligible_mask",
    "rows_per_cluster",
    "summarize_chunk",
    "merge_summaries",
    "pareto_front",
    "cluster_best",
]
