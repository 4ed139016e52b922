"""The scenario form's cross-field checks: what each workload needs, GPU and model shapes that fit together,
parallel layouts that divide the cluster, prices that are known, and engine problems put back on their fields.

`ScenarioFormChecks` declares no fields; `planner.forms.scenario.ScenarioForm` declares them and inherits
these checks.
"""

from __future__ import annotations

import math
from typing import Any

from django import forms

from catalog.models import Gpu
from planner.adapters import cloud_price_reference, cloud_prices_for, field_for_path
from planner.forms.fields import CUSTOM, CUSTOM_MODEL_KEYS, HAND_SET_LAYOUT_FIELDS, MAX_TOKENS_B
from planner.models import Batching, FacilityKind, ParallelismMode, Scenario, WorkloadKind

#: How closely a request rate and a tokens/s target given together must agree (rounding of a typed figure).
RATE_AGREEMENT = 0.01


class ScenarioFormChecks(forms.Form):
    """Cleaning that spans fields, with each message attached to the field concerned."""

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        self._clean_gpu(data)
        kind = data.get("workload_kind")
        if kind in (WorkloadKind.TRAINING, WorkloadKind.INFERENCE):
            self._clean_model(data)
        if kind == WorkloadKind.TRAINING:
            self._clean_training(data)
        elif kind == WorkloadKind.INFERENCE:
            self._clean_serving(data)
        elif kind == WorkloadKind.JOB:
            self._require(data, "job_single_gpu_hours")
            self._require(data, "job_parallel_fraction")
            if data.get("job_single_gpu_hours") is not None and data["job_single_gpu_hours"] <= 0:
                self.add_error("job_single_gpu_hours", "Must be more than 0 hours.")
        self._clean_power_limit(data)
        self._clean_economics(data)
        return data

    def _clean_power_limit(self, data: dict[str, Any]) -> None:
        """The GPU power limit in W, or as % of the GPU's TDP (turned into W here). Whether the cap lies between
        half the TDP and the TDP is the engine's rule (inputs/cluster.py); its message comes back on the field."""
        watts, pct = data.get("gpu_power_limit_w"), data.get("gpu_power_limit_pct")
        if watts is not None and pct is not None:
            self.add_error("gpu_power_limit_pct", "Give the GPU power limit in W or in % of TDP, not both.")
            return
        if watts is not None and not watts > 0:
            self.add_error("gpu_power_limit_w", f"The GPU power limit must be more than 0 W (got {watts:g}).")
        if pct is None:
            return
        if not 0 < pct <= 100:
            self.add_error(
                "gpu_power_limit_pct",
                f"The GPU power limit must be above 0 and at most 100 % of TDP (got {pct:g}).",
            )
            return
        gpu = self._chosen_gpu(data)
        tdp_w = (
            data.get("custom_gpu_tdp_w") if data.get("gpu_source") == CUSTOM else getattr(gpu, "tdp_w", None)
        )
        if tdp_w:
            data["gpu_power_limit_w"] = tdp_w * pct / 100
        else:
            self.add_error(
                "gpu_power_limit_pct", "The GPU has no TDP to take a share of: give the limit in W."
            )

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

    def _clean_serving(self, data: dict[str, Any]) -> None:
        """What a platform owner states: lengths, a request rate (requests/s, or output tokens/s that give it),
        latency targets above zero; a batch only for static batching."""
        for name in ("context_len", "output_len"):
            self._require(data, name)
        static = data.get("batching") == Batching.STATIC
        if static:
            self._require(data, "serving_batch", "The batch is required for static batching.")
        for name in (
            "requests_per_s",
            "target_tokens_per_s",
            "max_ttft_s",
            "max_tpot_s",
            "kernel_efficiency",
        ):
            if data.get(name) is not None and data[name] <= 0:
                self.add_error(name, f"{self.fields[name].label} must be more than 0 (got {data[name]:g}).")
        rate, tokens, output = (
            data.get("requests_per_s"),
            data.get("target_tokens_per_s"),
            data.get("output_len"),
        )
        if rate is None and tokens is None and not static and "requests_per_s" not in self.errors:
            self.add_error(
                "requests_per_s",
                "Give the request rate to serve (requests/s), or the output throughput (tokens/s): "
                "latency and the GPUs needed depend on it.",
            )
        if rate and tokens and output and not math.isclose(rate * output, tokens, rel_tol=RATE_AGREEMENT):
            self.add_error(
                "target_tokens_per_s",
                f"Disagrees with the request rate: {rate:g} requests/s × {output:,} output tokens = "
                f"{rate * output:,.0f} tokens/s, not {tokens:,.0f}. Give one of the two (or make them agree).",
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
        for name in HAND_SET_LAYOUT_FIELDS:
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
        """The catalog GPU the cleaned choice stands for (`Scenario.catalog_gpu`, the one rule)."""
        source = data.get("gpu_source")
        gpu = data.get("gpu") if source == "catalog" else None
        system = data.get("system") if source == "system" else None
        return Scenario(gpu=gpu, system=system).catalog_gpu

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
                not_sold = getattr(gpu, "price_kind", "") == "not_sold"
                why = " is not sold (cloud only)" if not_sold else ""
                self.add_error(
                    "server_price_usd",
                    f"The catalog has no price for the {name}{why}: type the price of one node.",
                )
        no_reference = gpu is None or cloud_price_reference(gpu.pk) is None
        if data.get("cloud_usd_per_gpu_hour") is None and (gpu or source == CUSTOM) and no_reference:
            why = next((row.notes for row in cloud_prices_for(gpu.pk) if row.notes), "") if gpu else ""
            self.add_error(
                "cloud_usd_per_gpu_hour",
                f"No public cloud price on file for the {name}"
                + (f" ({why.rstrip('.')})" if why else "")
                + ": type the rental price you were quoted to compare against.",
            )

    def _clean_economics(self, data: dict[str, Any]) -> None:
        self._clean_prices(data)
        if data.get("electricity") is None and data.get("electricity_usd_per_kwh") is None:
            self.add_error("electricity", "Pick a region or type your electricity price.")
        if data.get("facility") == FacilityKind.COLOCATION and data.get("colocation") is None:
            self.add_error("colocation", "Pick a colocation rate (or choose your own facility).")

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
