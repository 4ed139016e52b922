"""NVIDIA Multi-Instance GPU (MIG) profiles and packing small services into valid MIG layouts.

Profiles and placements: NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles" (A100 table and figure;
https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html, read 2026-12-01). A GPU has
8 memory slices and 7 compute slices. A profile `Ng.Mgb` takes N compute slices (N/7 of the SMs) and a run of
memory slices that must start at one of its allowed slots (`nvidia-smi mig -lgipp`):

    1g (1/8 memory)   start 0,1,2,3,4,5,6   size 1   up to 7
    1g (2/8 memory)   start 0,2,4,6         size 2   up to 4
    2g (2/8 memory)   start 0,2,4           size 2   up to 3
    3g (4/8 memory)   start 0,4             size 4   up to 2
    4g (4/8 memory)   start 0               size 4   up to 1
    7g (8/8 memory)   start 0               size 8   up to 1

Two instances may not share a memory slice and the compute slices of a GPU's instances sum to at most 7. The
guide gives the same geometry for H100, H200 and B200; only the memory per slice changes (profile names from the
guide and, for B200, the GPU Operator's device table: 1g.23gb ... 7g.180gb). Memory is the profile's label, read
as GiB like every GPU memory figure of the engine (docs/engine-contract.md).

Time-slicing (no MIG): replicas share a whole GPU by turns (CUDA time-slicing, NVIDIA GPU Operator "Time-Slicing
GPUs in Kubernetes"); there is no memory or fault isolation, so their memory must fit together, and context
switching costs throughput. TIME_SLICING_OVERHEAD is the planning assumption for that cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MEMORY_SLICES = 8
COMPUTE_SLICES = 7
#: Share of a time-sliced GPU's compute lost to context switches between tenants. Planning assumption, not
#: sourced: NVIDIA documents the lack of isolation but publishes no overhead; 10% is what we assume and echo.
TIME_SLICING_OVERHEAD = 0.10
MIG_SOURCE = (
    "NVIDIA Multi-Instance GPU User Guide, Supported MIG Profiles (A100/H100/H200/B200 tables), "
    "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html (read 2026-12-01)"
)


@dataclass(frozen=True)
class MigProfile:
    name: str
    compute_slices: int
    memory_slices: int
    memory_gib: float
    starts: tuple[int, ...]

    @property
    def compute_share(self) -> float:
        return self.compute_slices / COMPUTE_SLICES

    @property
    def gpu_equivalent(self) -> float:
        """Whole-GPU equivalents (contract: a 1g slice is 1/7 of a GPU)."""
        return self.compute_slices / COMPUTE_SLICES


#: (compute slices, memory slices, allowed starts) of the six profiles, in the guide's order.
_GEOMETRY: tuple[tuple[int, int, tuple[int, ...]], ...] = (
    (1, 1, (0, 1, 2, 3, 4, 5, 6)),
    (1, 2, (0, 2, 4, 6)),
    (2, 2, (0, 2, 4)),
    (3, 4, (0, 4)),
    (4, 4, (0,)),
    (7, 8, (0,)),
)
#: Profile memory (GB as labelled) per GPU, same order as _GEOMETRY (user guide tables).
_MEMORY_GB: dict[str, tuple[float, ...]] = {
    "nvidia_a100_sxm4_40gb": (5, 10, 10, 20, 20, 40),
    "nvidia_a100_pcie_40gb": (5, 10, 10, 20, 20, 40),
    "nvidia_a100_sxm4_80gb": (10, 20, 20, 40, 40, 80),
    "nvidia_a100_pcie_80gb": (10, 20, 20, 40, 40, 80),
    "nvidia_h100_sxm5_80gb": (10, 20, 20, 40, 40, 80),
    "nvidia_h100_pcie_80gb": (10, 20, 20, 40, 40, 80),
    "nvidia_h100_nvl_94gb": (12, 24, 24, 47, 47, 94),
    "nvidia_h200_sxm_141gb": (18, 35, 35, 71, 71, 141),
    "nvidia_b200_hgx": (23, 45, 45, 90, 90, 180),
}


def mig_profiles(gpu_id: str | None) -> tuple[MigProfile, ...]:
    """The MIG profiles of a catalog GPU ((), when it has none: L40S, L4, AMD, ... or an unknown GPU)."""
    memory = _MEMORY_GB.get(gpu_id or "")
    if memory is None:
        return ()
    return tuple(
        MigProfile(f"{c}g.{m:g}gb", c, s, float(m), starts)
        for (c, s, starts), m in zip(_GEOMETRY, memory, strict=True)
    )


def supports_mig(gpu_id: str | None) -> bool:
    return bool(mig_profiles(gpu_id))


def smallest_profile(
    profiles: tuple[MigProfile, ...], memory_gib: float, compute_share: float
) -> MigProfile | None:
    """The profile with the fewest compute then memory slices that holds one replica (None if none does)."""
    fitting = [p for p in profiles if p.memory_gib >= memory_gib and p.compute_share >= compute_share - 1e-9]
    return min(fitting, key=lambda p: (p.compute_slices, p.memory_slices), default=None)


@dataclass
class _Gpu:
    memory_used: int = 0  # bitmask of the 8 memory slices
    compute_used: int = 0

    def place(self, p: MigProfile) -> bool:
        """Put one instance at its last free allowed start (True when it fits): placing from the top leaves the
        low slots, which every profile may start at, to the instances that follow (largest first)."""
        if self.compute_used + p.compute_slices > COMPUTE_SLICES:
            return False
        run = (1 << p.memory_slices) - 1
        for start in reversed(p.starts):
            mask = run << start
            if start + p.memory_slices <= MEMORY_SLICES and not self.memory_used & mask:
                self.memory_used |= mask
                self.compute_used += p.compute_slices
                return True
        return False


@dataclass(frozen=True)
class Packing:
    """GPUs a set of replicas takes: with MIG, the instances and how many GPUs they fill."""

    gpus: int
    profile: str | None
    slices: int  # MIG instances used (0 without MIG)
    gpu_equivalents: float  # compute held by the instances, in whole GPUs (the contract's `gpus`)
    mode: str  # "mig", "whole" or "time_slicing"


def pack_mig(profile_counts: list[tuple[MigProfile, int]]) -> int:
    """GPUs needed for the given instances: first-fit decreasing (largest profiles first) on valid placements."""
    gpus: list[_Gpu] = []
    for p, count in sorted(profile_counts, key=lambda pc: -pc[0].memory_slices):
        for _ in range(count):
            for g in gpus:
                if g.place(p):
                    break
            else:
                g = _Gpu()
                placed = g.place(p)
                assert placed, p
                gpus.append(g)
    return len(gpus)


def per_gpu(profile: MigProfile) -> int:
    """How many instances of one profile a GPU holds (its valid placements, compute permitting)."""
    g, n = _Gpu(), 0
    while g.place(profile):
        n += 1
    return n


def pack_service(
    replicas: int,
    memory_gib: float,
    compute_share: float,
    gpu_memory_gib: float,
    *,
    mode: str,
    gpu_id: str | None,
) -> Packing | None:
    """GPUs for `replicas` identical replicas of a service on one GPU type (None: a replica does not fit).

    mig: each replica in the smallest profile that holds it, instances packed on valid placements.
    whole: each replica takes ceil(max(compute share, memory share)) whole GPUs.
    time_slicing: replicas share GPUs while their memory fits together and their compute shares, inflated by
    TIME_SLICING_OVERHEAD, sum to at most one GPU.
    """
    if replicas <= 0:
        return Packing(0, None, 0, 0.0, mode)
    if mode == "mig":
        profile = smallest_profile(mig_profiles(gpu_id), memory_gib, compute_share)
        if profile is None:
            mode = "whole"
        else:
            per = per_gpu(profile)
            gpus = math.ceil(replicas / per)
            return Packing(gpus, profile.name, replicas, replicas * profile.gpu_equivalent, "mig")
    whole_each = max(1, math.ceil(max(compute_share, memory_gib / gpu_memory_gib) - 1e-9))
    if mode == "time_slicing" and whole_each == 1:
        by_memory = math.floor(gpu_memory_gib / memory_gib) if memory_gib > 0 else replicas
        by_compute = (
            math.floor((1.0 - TIME_SLICING_OVERHEAD) / compute_share + 1e-9)
            if compute_share > 0
            else replicas
        )
        per = max(1, min(by_memory, by_compute))
        gpus = math.ceil(replicas / per)
        return Packing(gpus, None, 0, float(gpus), "time_slicing")
    gpus = replicas * whole_each
    return Packing(gpus, None, 0, float(gpus), "whole")
