"""Prices the engine fills in when the input gives none: a node's host parts and published GPU rental prices.

The planning pages, the API (planner/adapters.py) and the fleet planner (engine/fleet) read them from here, so
the rule has one home.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Non-GPU parts of an 8-GPU HGX/DGX H100 server (CPUs, DRAM, NICs, NVSwitch baseboard, storage, chassis and
#: power supplies): USD 32,010 in SemiAnalysis's DGX H100 bill of materials as summed by Epoch AI
#: (github.com/epoch-research/training-cost-trends, notebook section "Production cost of a DGX H100 server").
#: Used per GPU slot only when neither a system price nor a typed server price is known.
HOST_BOM_USD_PER_8_GPU_SERVER = 32_010.0
HOST_BOM_GPU_SLOTS = 8
HOST_BOM_SOURCE = (
    "SemiAnalysis DGX H100 bill of materials, non-GPU parts USD 32,010 per 8-GPU server, as summed by Epoch AI "
    "(https://github.com/epoch-research/training-cost-trends)"
)


@dataclass(frozen=True)
class CloudPriceReference:
    """A published on-demand rental price range for one catalog GPU (USD per GPU-hour); the planning figure is
    the midpoint, the same convention the catalog uses for ranges."""

    low_usd: float
    high_usd: float
    source: str

    @property
    def usd_per_gpu_hour(self) -> float:
        return (self.low_usd + self.high_usd) / 2


#: Specialty-cloud on-demand prices (not hyperscaler list prices, not reserved or spot).
CLOUD_PRICE_REFERENCES: dict[str, CloudPriceReference] = {
    "nvidia_a100_sxm4_80gb": CloudPriceReference(
        1.10,
        1.50,
        "specialty clouds on demand, May 2026 (https://www.mercatus-ai.com/blog/cloud-gpu-pricing)",
    ),
    "nvidia_h100_sxm5_80gb": CloudPriceReference(
        2.50,
        3.50,
        "specialty clouds on demand, May 2026 (https://www.mercatus-ai.com/blog/cloud-gpu-pricing)",
    ),
    "nvidia_h200_sxm_141gb": CloudPriceReference(
        3.50,
        4.50,
        "specialty clouds on demand, May 2026 (https://www.mercatus-ai.com/blog/cloud-gpu-pricing)",
    ),
    "nvidia_b200_hgx": CloudPriceReference(
        4.50,
        6.00,
        "specialized clouds on demand, March 2026 "
        "(https://lyceum.technology/magazine/nvidia-b200-gpu-cloud-pricing-2026/)",
    ),
}


def node_usd_from_gpu(gpus_per_node: int, gpu_usd: float) -> float:
    """A node priced as its GPUs at their catalog price plus the host parts of a DGX H100 per GPU slot."""
    return gpus_per_node * (gpu_usd + HOST_BOM_USD_PER_8_GPU_SERVER / HOST_BOM_GPU_SLOTS)
