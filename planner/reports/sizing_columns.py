"""Columns of the "size it for me" answer, declared once for its page, the scenario PDF and the sizing CSV.

Rows are the sizer's answers (docs/engine-contract.md, "Sizing a service": `answers[i]`). The answer's GPU count is
its colocated layout's, or the disaggregated pools' when splitting prefill and decode needs fewer GPUs; the
getters read the figures of the layout that gave the count (`chosen`) and never compute one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.reports import formatting as f
from planner.reports.columns import Column


def disaggregated_chosen(answer: dict[str, Any]) -> bool:
    """Whether the answer's GPU count is the disaggregated pools' (the sizer chose to split)."""
    pools = answer.get("disaggregated")
    return bool(answer.get("feasible") and pools and pools.get("gpus") == answer.get("gpus"))


def _layout(answer: dict[str, Any]) -> str | None:
    if not answer.get("feasible"):
        return None
    if disaggregated_chosen(answer):
        pools = answer["disaggregated"]
        return (
            f"prefill {pools['prefill']['replicas']} × {pools['prefill']['label']} + "
            f"decode {pools['decode']['replicas']} × {pools['decode']['label']}"
        )
    colocated = answer["colocated"]
    return f"{colocated['replicas']} × {colocated['label']}"


def _figure(key: str, pool: str) -> Callable[[dict[str, Any]], Any]:
    """A figure of the chosen layout; for split pools, of the pool that sets it (`pool`: prefill or decode)."""

    def get(answer: dict[str, Any]) -> Any:
        if not answer.get("feasible"):
            return None
        if disaggregated_chosen(answer):
            return answer["disaggregated"][pool][key]
        return answer["colocated"][key]

    return get


def _margin(answer: dict[str, Any]) -> Any:
    """The margin of the chosen layout; of split pools, the tighter pool's (the one that binds)."""
    if not answer.get("feasible"):
        return None
    if disaggregated_chosen(answer):
        return min(answer["disaggregated"][pool]["margin"] for pool in ("prefill", "decode"))
    return answer["colocated"]["margin"]


def _feasible(getter: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Any]:
    return lambda answer: getter(answer) if answer.get("feasible") else None


def _int(value: Any) -> str:
    return f.number(value, 0)


def _signed_pct(value: Any) -> str:
    return f.MISSING if value is None else ("+" if value >= 0 else "") + f.percent(value)


SIZING = frozenset({"inference"})

#: One row per GPU type of the sizing answer.
SIZING_COLUMNS: tuple[Column, ...] = (
    Column("gpu", "GPU", lambda a: a["gpu"], group="Sizing", kinds=SIZING),
    Column("gpus", "GPUs", _feasible(lambda a: a["gpus"]), _int, "", "min", "Sizing", SIZING),
    Column("nodes", "Nodes", _feasible(lambda a: a["nodes"]), _int, "", "min", "Sizing", SIZING),
    Column("layout", "Cheapest layout (replicas × layout)", _layout, group="Sizing", kinds=SIZING),
    Column(
        "ttft_s_p90",
        "TTFT p90",
        _figure("ttft_s_p90", "prefill"),
        f.latency,
        "s",
        "min",
        "Sizing",
        SIZING,
        unit_in_value=True,
    ),
    Column(
        "tpot_s_p90",
        "TPOT p90",
        _figure("tpot_s_p90", "decode"),
        f.latency,
        "s",
        "min",
        "Sizing",
        SIZING,
        unit_in_value=True,
    ),
    Column("margin", "Margin", _margin, _signed_pct, "", "max", "Sizing", SIZING),
    Column(
        "it_kw", "IT power", _feasible(lambda a: a["power"]["it_kw"]), f.sig, "kW", "min", "Sizing", SIZING
    ),
    Column(
        "facility_kw",
        "Facility power",
        _feasible(lambda a: a["power"]["facility_kw"]),
        f.sig,
        "kW",
        "min",
        "Sizing",
        SIZING,
    ),
    Column(
        "usd_per_million_tokens_own",
        "$ per M output tokens, owned",
        _feasible(lambda a: a["usd_per_million_tokens"]["own"]),
        f.usd,
        "USD",
        "min",
        "Sizing",
        SIZING,
    ),
    Column(
        "usd_per_million_tokens_cloud",
        "$ per M output tokens, rented",
        _feasible(lambda a: a["usd_per_million_tokens"]["cloud"]),
        f.usd,
        "USD",
        "min",
        "Sizing",
        SIZING,
    ),
    Column("reason", "Why not", lambda a: a["reason"], group="Sizing", kinds=SIZING),
)
