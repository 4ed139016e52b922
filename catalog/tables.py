"""The catalog's tables by their URL name (the API's /api/catalog/<name>/, CSV downloads, the catalog copy)."""

from __future__ import annotations

from django.db import models

from catalog.models import Cooling, Cpu, EconomicsFact, Gpu, Interconnect, Switch, System
from catalog.price_models import CloudPrice, PartPrice

CATALOG_TABLES: dict[str, type[models.Model]] = {
    "gpus": Gpu,
    "cpus": Cpu,
    "interconnects": Interconnect,
    "switches": Switch,
    "systems": System,
    "cooling": Cooling,
    "economics": EconomicsFact,
    "prices": PartPrice,
    "cloud_prices": CloudPrice,
}
