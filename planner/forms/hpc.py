"""The HPC and rendering presets page's form: a preset, the cluster (catalog GPU, GPU count), a throughput
target, and what one job produces. Nothing is stored; the page reads it from the query string."""

from __future__ import annotations

from typing import Any

from django import forms

from catalog.models import Gpu
from planner.engine.job.presets import PRESETS
from planner.engine.job.throughput import MAX_GPUS
from planner.forms.fields import GpuChoiceField

DEFAULT_GPU_ID = "nvidia_h100_sxm5_80gb"
#: Relative speeds outside this band are a unit slip (a GPU 1,000x another's speed does not exist).
MAX_RELATIVE_SPEED = 100.0
TARGET_JOBS = "jobs"
TARGET_WORK = "work"


class FP32GpuChoiceField(GpuChoiceField):
    def label_from_instance(self, obj: Gpu) -> str:
        return f"{obj.vendor} {obj.model} — {obj.fp32_tflops:g} TFLOPS FP32"


class HpcPresetForm(forms.Form):
    preset = forms.ChoiceField(label="Preset", choices=[(p.key, p.label) for p in PRESETS.values()])
    gpu = FP32GpuChoiceField(label="GPU", queryset=Gpu.objects.none(), to_field_name="pk")
    gpu_count = forms.IntegerField(
        label="GPUs in the cluster", min_value=1, max_value=MAX_GPUS, help_text="All GPUs, every node."
    )
    target = forms.FloatField(
        label="Target throughput per day",
        required=False,
        help_text="Jobs, frames or ns per day (choose below); leave blank for no target.",
    )
    target_unit = forms.ChoiceField(
        label="Target counts",
        choices=[(TARGET_JOBS, "jobs per day"), (TARGET_WORK, "frames or ns per day")],
        required=False,
    )
    work_per_job = forms.FloatField(
        label="Work per job",
        required=False,
        help_text="Frames per shot (Blender) or ns simulated per run (GROMACS).",
    )
    reference_gpu = FP32GpuChoiceField(
        label="Times measured on",
        queryset=Gpu.objects.none(),
        required=False,
        empty_label="the preset's GPU",
    )
    relative_speed = forms.FloatField(
        label="Speed vs that GPU (override)",
        required=False,
        help_text="Your measured ratio; blank: FP32 peak ratio (an assumption, flagged).",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        gpus = Gpu.objects.filter(fp32_tflops__gt=0).order_by("vendor", "model")
        self.fields["gpu"].queryset = gpus
        self.fields["reference_gpu"].queryset = gpus

    def clean_target(self) -> float | None:
        value = self.cleaned_data.get("target")
        if value is not None and not value > 0:
            raise forms.ValidationError("Must be greater than 0 (leave blank for no target).")
        return value

    def clean_work_per_job(self) -> float | None:
        value = self.cleaned_data.get("work_per_job")
        if value is not None and not value > 0:
            raise forms.ValidationError("Must be greater than 0 (frames per shot or ns per simulation).")
        return value

    def clean_relative_speed(self) -> float | None:
        value = self.cleaned_data.get("relative_speed")
        if value is not None and not 0 < value <= MAX_RELATIVE_SPEED:
            raise forms.ValidationError(
                f"Must be above 0 and at most {MAX_RELATIVE_SPEED:g} (how many times the reference GPU's speed)."
            )
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        preset = PRESETS.get(data.get("preset") or "")
        if preset is not None and data.get("reference_gpu") is None and "reference_gpu" not in self.errors:
            reference = self.fields["reference_gpu"].queryset.filter(pk=preset.reference_gpu_id).first()
            if reference is None:
                self.add_error(
                    "reference_gpu",
                    f"The GPU this preset was measured on ({preset.reference_gpu_id}) is not in the catalog with an "
                    "FP32 peak: pick the GPU your times were measured on.",
                )
            else:
                data["reference_gpu"] = reference
        wants_work = data.get("target") is not None and data.get("target_unit") == TARGET_WORK
        if (
            wants_work
            and preset is not None
            and data.get("work_per_job") is None
            and preset.work_per_job is None
        ):
            self.add_error(
                "work_per_job",
                f"Give the {preset.work_unit} per {preset.job_noun} to set a target in {preset.work_unit}/day.",
            )
        return data


DEFAULT_QUERY: dict[str, Any] = {
    "preset": "gromacs_100k",
    "gpu": DEFAULT_GPU_ID,
    "gpu_count": 8,
    "target_unit": TARGET_JOBS,
}


def query_with_defaults(query: Any) -> dict[str, Any]:
    """The query string with the page's defaults for keys it leaves out (GROMACS on one 8-GPU H100 node, no
    target); a key given empty stays empty, so a cleared required field is reported, not silently refilled."""
    return {**DEFAULT_QUERY, **{key: query.get(key) for key in query}}
