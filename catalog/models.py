"""The hardware catalog: one model per kind of thing, every number with its unit in the field name and help text.

Rows come from the sourced seed files in catalog/seed/ (built from the reference catalog by `build_seed`, loaded by
`load_catalog`). A blank number means "not published or not confirmed", never zero. Every row keeps its source
URLs, a `verified` flag and notes; `locally_edited` marks rows staff changed in the admin, which `load_catalog`
then leaves alone unless told `--force`.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models

from catalog.model_base import (
    CatalogEntry,
    PriceKind,
    _check_between,
    _check_order,
    _check_price,
    _float,
    _int,
    _text,
    _year,
    price_kind_field,
)
from catalog.validators import validate_non_negative, validate_pue, validate_source_urls


class Gpu(CatalogEntry):
    """A GPU or accelerator. All tensor/matrix throughputs are DENSE (no 2:4 sparsity)."""

    vendor = models.CharField(
        max_length=80, help_text="Manufacturer, e.g. NVIDIA, AMD, Intel (Habana), Google."
    )
    model = models.CharField(
        max_length=160, help_text="Product name as the vendor writes it, with memory size."
    )
    form_factor = _text("form factor", "SXM, OAM, PCIe card, ... and its cooling where known.")
    launch_year = _year(
        "launch year", "Year the part was launched or first shipped (blank if not confirmed)."
    )
    memory_gb = _float(
        "memory (GB)",
        "Memory capacity in GB as the vendor labels it (decimal GB for NVIDIA/AMD; Google states TPU v4 in GiB).",
    )
    memory_type = _text("memory type", "HBM2 / HBM2e / HBM3 / HBM3e / GDDR6 ...", max_length=80)
    mem_bandwidth_tbs = _float(
        "memory bandwidth (TB/s)", "Peak memory bandwidth in TB/s (10^12 bytes per second)."
    )
    fp64_tflops = _float("FP64 vector (TFLOPS)", "Non-tensor (vector) FP64 peak in TFLOPS (10^12 FLOP/s).")
    fp64_tensor_tflops = _float("FP64 tensor (TFLOPS)", "FP64 peak on tensor/matrix cores in TFLOPS.")
    fp32_tflops = _float("FP32 vector (TFLOPS)", "Non-tensor FP32 peak in TFLOPS.")
    tf32_tflops = _float("TF32 dense (TFLOPS)", "Dense TF32 tensor peak in TFLOPS (no sparsity).")
    bf16_tflops = _float("BF16 dense (TFLOPS)", "Dense BF16 tensor peak in TFLOPS (no sparsity).")
    fp16_tflops = _float("FP16 dense (TFLOPS)", "Dense FP16 tensor peak in TFLOPS (no sparsity).")
    fp8_tflops = _float("FP8 dense (TFLOPS)", "Dense FP8 tensor peak in TFLOPS (no sparsity).")
    int8_tops = _float(
        "INT8 dense (TOPS)", "Dense INT8 tensor peak in TOPS (10^12 integer ops/s, no sparsity)."
    )
    fp4_tflops = _float("FP4 dense (TFLOPS)", "Dense FP4 tensor peak in TFLOPS (no sparsity).")
    tdp_w = _float(
        "TDP (W)", "Maximum board/module power in watts (TDP/TGP; see notes for measured or configured)."
    )
    scaleup_interconnect = _text(
        "scale-up interconnect", "GPU-to-GPU fabric (NVLink 4, Infinity Fabric, ICI ...)."
    )
    scaleup_bw_gbs = _float(
        "scale-up bandwidth (GB/s)",
        "Aggregate scale-up bandwidth per GPU in GB/s, both directions summed (NVLink 4 = 900 = 450 each way).",
    )
    pcie_gen = _int("PCIe generation", "Host PCIe generation of the x16 link (blank when not PCIe-attached).")
    price_usd = _float(
        "price (USD)", "Planning price per GPU in USD: the midpoint when a range was published."
    )
    price_low_usd = _float("price low (USD)", "Low end of a published price range in USD.")
    price_high_usd = _float("price high (USD)", "High end of a published price range in USD.")
    price_basis = _text("price basis", "What the price is: list price, street price, press estimate ...", 300)
    price_date = _text("price date", "When the price was published or observed.", 80)
    price_source = models.TextField(
        "price source", blank=True, help_text="URLs for the price, separated by '; '."
    )
    price_verified = models.BooleanField(
        "price verified", default=False, help_text="Yes only for a vendor-published list price."
    )
    price_kind = price_kind_field()

    class Meta:
        ordering = ["vendor", "model"]
        verbose_name = "GPU"
        verbose_name_plural = "GPUs"

    def __str__(self) -> str:
        return self.model

    @property
    def dense_16bit_tflops(self) -> float | None:
        """Dense BF16 peak, else dense FP16 (Volta and A10 have no BF16)."""
        return self.bf16_tflops if self.bf16_tflops is not None else self.fp16_tflops

    def missing_key_specs(self) -> list[str]:
        """Names of the numbers the sizing engine needs that this row lacks."""
        needed = {
            "memory": self.memory_gb,
            "memory bandwidth": self.mem_bandwidth_tbs,
            "TDP": self.tdp_w,
            "dense 16-bit TFLOPS": self.dense_16bit_tflops,
        }
        return [name for name, value in needed.items() if value is None]

    def range_errors(self) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        _check_price(errors, self)
        if self.price_source.strip():
            try:
                validate_source_urls(self.price_source)
            except ValidationError as exc:
                errors.setdefault("price_source", []).extend(exc.messages)
        return errors


class Cpu(CatalogEntry):
    """A server CPU (or CPU superchip)."""

    vendor = models.CharField(max_length=80, help_text="Manufacturer, e.g. AMD, Intel, NVIDIA.")
    model = models.CharField(max_length=160, help_text="Product name, e.g. EPYC 9654.")
    family = _text("family / codename", "Product family and core codename, e.g. EPYC 9004 / Genoa (Zen 4).")
    launch_year = _year("launch year", "Year of launch.")
    cores = _int("cores", "Physical cores per package.")
    threads = _int("threads", "Hardware threads per package (blank if SMT support is not confirmed).")
    base_ghz = _float("base clock (GHz)", "Base clock in GHz.")
    boost_ghz = _float("boost clock (GHz)", "Maximum single-core boost clock in GHz.")
    tdp_w = _float("TDP (W)", "Default TDP in watts.")
    memory_channels = _int("memory channels", "Memory channels per package.")
    memory_type = _text("memory type", "DDR4 / DDR5 / LPDDR5X ...", max_length=80)
    max_mem_speed_mts = _float("max memory speed (MT/s)", "Highest supported memory transfer rate in MT/s.")
    max_mem_bw_gbs = _float(
        "max memory bandwidth (GB/s)",
        "Theoretical peak memory bandwidth in GB/s (channels x MT/s x 8 bytes).",
    )
    pcie_lanes = _int("PCIe lanes", "PCIe lanes per package.")
    pcie_gen = _int("PCIe generation", "PCIe generation of the host lanes.")
    l3_cache_mb = _float("L3 cache (MB)", "Total L3 cache in MB.")
    price_usd = _float("price (USD)", "Price per CPU in USD (AMD 1kU price where published).")
    price_basis = _text("price basis", "What the price is (1kU list, street ...).", 300)
    price_verified = models.BooleanField("price verified", default=False, help_text="Yes for a vendor price.")

    class Meta:
        ordering = ["vendor", "model"]
        verbose_name = "CPU"
        verbose_name_plural = "CPUs"

    def __str__(self) -> str:
        return self.model

    def range_errors(self) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        _check_order(errors, ("base_ghz", self.base_ghz), ("boost_ghz", self.boost_ghz), model=type(self))
        if self.cores is not None and self.threads is not None and self.threads < self.cores:
            errors.setdefault("threads", []).append(
                f"Cannot be fewer than the cores ({self.threads} < {self.cores})."
            )
        return errors


class Interconnect(CatalogEntry):
    """A link or fabric generation (PCIe, NVLink, InfiniBand, Ethernet), a NIC, an optic or a topology rule."""

    category = models.CharField(
        max_length=80, help_text="host link, scale-up GPU link, scale-out fabric, NIC ..."
    )
    name = models.CharField(max_length=200, help_text="Name of the link, device or topology.")
    generation = _text("generation", "Generation label, e.g. Gen5, NDR, 4.", 80)
    lane_rate_gbps = _float("lane rate (Gb/s)", "Signalling rate per lane per direction in Gb/s.")
    lanes_or_links = _text("lanes or links", "Lane or link count as published (text, e.g. '18 links', '4x').")
    port_rate_gbps = _float(
        "port rate (Gb/s)", "Rate of one port in Gb/s (the 4x port for InfiniBand/Ethernet)."
    )
    aggregate_bw_gbs_unidir = _float(
        "aggregate bandwidth, one way (GB/s)", "Aggregate bandwidth per device in GB/s, one direction."
    )
    aggregate_bw_gbs_bidir = _float(
        "aggregate bandwidth, both ways (GB/s)",
        "Aggregate bandwidth per device in GB/s, both directions summed.",
    )
    latency_us = _float("latency (µs)", "Published latency in microseconds (only where a source gives one).")
    power_w = _float("power (W)", "Power draw in watts (optics: maximum per module).")
    typical_use = models.TextField("typical use", blank=True, help_text="Where this link is used.")
    max_endpoints_formula = models.TextField(
        "max endpoints formula",
        blank=True,
        help_text="Topology rows: maximum endpoints N as a function of radix k.",
    )
    switch_count_formula = models.TextField(
        "switch count formula", blank=True, help_text="Topology rows: switches needed for N endpoints."
    )

    class Meta:
        ordering = ["category", "name"]
        verbose_name = "interconnect"

    def __str__(self) -> str:
        return self.name

    def range_errors(self) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        _check_order(
            errors,
            ("aggregate_bw_gbs_unidir", self.aggregate_bw_gbs_unidir),
            ("aggregate_bw_gbs_bidir", self.aggregate_bw_gbs_bidir),
            model=type(self),
        )
        return errors


class Switch(CatalogEntry):
    """A network switch (InfiniBand, Ethernet) or NVLink switch part."""

    vendor = models.CharField(max_length=80, help_text="Manufacturer.")
    model = models.CharField(max_length=160, help_text="Product name.")
    asic_family = _text("ASIC family", "Switch silicon, e.g. Quantum-2 (NDR).")
    protocol = _text("protocol", "InfiniBand NDR, Ethernet, NVLink 4 ...")
    ports = _int(
        "ports", "Native ports (switch radix k); blank when the part is not a port-counted switch box."
    )
    ports_text = _text("ports (as published)", "The original ports cell, e.g. '64 (32 twin-port OSFP)'.", 300)
    port_speed_gbps = _float("port speed (Gb/s)", "Native port speed in Gb/s.")
    alt_port_config = _text(
        "alternative port configuration", "Split/breakout modes, e.g. 128 x 200 Gb/s.", 300
    )
    switching_capacity_tbps = _float(
        "switching capacity (Tb/s)",
        "Vendor aggregate switching capacity in Tb/s, both directions counted (64 x 400G = 51.2). Blank for NVLink "
        "parts quoted in TB/s (see original cells).",
    )
    form_factor_ru = _int("form factor (RU)", "Height in rack units.")
    latency_ns = _float("latency (ns)", "Port-to-port latency in nanoseconds (only from a vendor document).")
    power_w = _float("power (W)", "Typical or maximum power in watts.")
    cooling = _text("cooling", "air / liquid.", 120)
    price_usd = _float("price (USD)", "Price per switch in USD.")
    nonblocking_2tier_max_endpoints = _int(
        "2-tier non-blocking endpoints",
        "Largest non-blocking 2-tier leaf-spine: k^2/2 endpoints at native speed.",
    )
    nonblocking_3tier_max_endpoints = _int(
        "3-tier non-blocking endpoints",
        "Largest non-blocking 3-tier fat tree: k^3/4 endpoints (Al-Fares 2008).",
    )

    class Meta:
        ordering = ["vendor", "model"]
        verbose_name = "switch"
        verbose_name_plural = "switches"

    def __str__(self) -> str:
        return self.model


class System(CatalogEntry):
    """A complete GPU server or rack (DGX, NVL72, OAM baseboard kit)."""

    vendor = models.CharField(max_length=80, help_text="Manufacturer.")
    name = models.CharField(max_length=200, help_text="System name, e.g. DGX H100.")
    gpu = models.ForeignKey(
        Gpu,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="systems",
        verbose_name="GPU",
        help_text="The catalog GPU this system carries, resolved from the GPU model text (blank if ambiguous).",
    )
    gpu_model_text = _text("GPU model (as published)", "The GPU as the system's source names it.")
    gpus = _int("GPUs", "GPUs per system.")
    gpu_memory_total_gb = _float("GPU memory total (GB)", "Sum of GPU memory in GB as the vendor labels it.")
    cpus = _int("CPUs", "CPU sockets (or Grace CPUs) per system.")
    cpu_model = _text("CPU model", "Host CPU as published.", 300)
    system_memory = _text("system memory", "Host memory as published (text).", 300)
    compute_nics = models.TextField("compute NICs", blank=True, help_text="Scale-out NICs as published.")
    storage_mgmt_nics = models.TextField("storage/management NICs", blank=True, help_text="As published.")
    scaleup_fabric = models.TextField(
        "scale-up fabric", blank=True, help_text="In-system GPU fabric as published."
    )
    system_max_power_kw = _float("max power (kW)", "Vendor maximum input power of the whole system in kW.")
    rack_units = _int("rack units (RU)", "Height in rack units (blank for a whole rack; see original cells).")
    weight_kg = _float("weight (kg)", "Weight in kilograms.")
    cooling = _text("cooling", "Air, direct liquid ...", 300)
    price_usd = _float("price (USD)", "Price per system in USD: the midpoint when a range was published.")
    price_low_usd = _float("price low (USD)", "Low end of a published price range in USD.")
    price_high_usd = _float("price high (USD)", "High end of a published price range in USD.")
    price_basis = _text("price basis", "What the price is: launch list price, press estimate ...", 300)
    price_date = _text("price date", "When the price was published.", 80)
    price_source = models.TextField(
        "price source",
        blank=True,
        help_text="URLs for the price, separated by '; ' (blank: the row's source).",
    )
    price_verified = models.BooleanField("price verified", default=False, help_text="Yes for a vendor price.")
    price_kind = price_kind_field()

    class Meta:
        ordering = ["vendor", "name"]
        verbose_name = "system"

    def __str__(self) -> str:
        return self.name

    def range_errors(self) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        _check_price(errors, self)
        if self.price_source.strip():
            try:
                validate_source_urls(self.price_source)
            except ValidationError as exc:
                errors.setdefault("price_source", []).extend(exc.messages)
        return errors


class Cooling(CatalogEntry):
    """A cooling technology, a PUE benchmark or a guideline."""

    category = models.CharField(
        max_length=80, help_text="benchmark, cooling technology, regulation, guideline."
    )
    name = models.CharField(max_length=200, help_text="What the row describes.")
    pue_low = models.FloatField(
        "PUE low",
        null=True,
        blank=True,
        validators=[validate_pue],
        help_text="Low end of the typical PUE (facility energy / IT energy, >= 1); benchmarks repeat one value.",
    )
    pue_high = models.FloatField(
        "PUE high", null=True, blank=True, validators=[validate_pue], help_text="High end of the typical PUE."
    )
    rack_density_kw_typical = _float(
        "typical rack density (kW)",
        "Typical maximum rack density in kW per rack (midpoint of a published range).",
    )
    rack_density_kw_typical_low = _float(
        "typical rack density low (kW)", "Low end of the typical range, kW/rack."
    )
    rack_density_kw_typical_high = _float(
        "typical rack density high (kW)", "High end of the typical range, kW/rack."
    )
    rack_density_kw_high = _float(
        "high rack density (kW)", "Highest rack density reported in kW per rack ('120+' is stored as 120)."
    )
    capex_usd_per_kw_low = _float(
        "capex low (USD/kW)", "Installed cooling capex per kW of IT load, low, in USD."
    )
    capex_usd_per_kw_high = _float(
        "capex high (USD/kW)", "Installed cooling capex per kW of IT load, high, in USD."
    )
    relative_capex_note = models.TextField(
        "relative capex", blank=True, help_text="Capex compared with air cooling."
    )
    wue_l_per_kwh = _float(
        "WUE (L/kWh)",
        "Water usage effectiveness: litres of site water per IT kWh (0 allowed).",
        positive=False,
    )
    year = _year("year", "Year the figure applies to (data year, not publication year).")

    class Meta:
        ordering = ["category", "name"]
        verbose_name = "cooling option"
        verbose_name_plural = "cooling options"

    def __str__(self) -> str:
        return self.name

    def range_errors(self) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        _check_order(errors, ("pue_low", self.pue_low), ("pue_high", self.pue_high), model=type(self))
        _check_order(
            errors,
            ("rack_density_kw_typical_low", self.rack_density_kw_typical_low),
            ("rack_density_kw_typical_high", self.rack_density_kw_typical_high),
            model=type(self),
        )
        _check_order(
            errors,
            ("capex_usd_per_kw_low", self.capex_usd_per_kw_low),
            ("capex_usd_per_kw_high", self.capex_usd_per_kw_high),
            model=type(self),
        )
        return errors


class EconomicsFact(CatalogEntry):
    """One economic planning figure: an electricity price, a colocation rate, a depreciation period, grid carbon."""

    category = models.CharField(
        max_length=80, help_text="electricity price, colocation, depreciation or grid carbon."
    )
    region = models.CharField(max_length=160, help_text="Where (or for whom) the figure applies.")
    metric = models.CharField(max_length=300, help_text="What is measured.")
    value = models.FloatField(
        "value",
        null=True,
        blank=True,
        validators=[validate_non_negative],
        help_text="Planning figure in the row's unit: the midpoint when a range was published.",
    )
    value_low = models.FloatField(
        "value low",
        null=True,
        blank=True,
        validators=[validate_non_negative],
        help_text="Low end of a range.",
    )
    value_high = models.FloatField(
        "value high",
        null=True,
        blank=True,
        validators=[validate_non_negative],
        help_text="High end of a range.",
    )
    value_text = _text(
        "value (as published)", "The original value cell, e.g. '0.089-0.276' or '5 (servers)'.", 300
    )
    unit = models.CharField(
        max_length=80, help_text="Unit of value, e.g. USD/kWh, EUR/kWh, years, kg CO2/kWh."
    )
    period = _text("period", "Year or period the figure applies to.", 120)

    class Meta:
        ordering = ["category", "region", "id"]
        verbose_name = "economics fact"

    def __str__(self) -> str:
        return f"{self.region}: {self.metric}"

    def range_errors(self) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        _check_order(errors, ("value_low", self.value_low), ("value_high", self.value_high), model=type(self))
        _check_between(
            errors,
            "value",
            self.value,
            ("value_low", self.value_low),
            ("value_high", self.value_high),
            model=type(self),
        )
        if self.unit.strip().lower() in {"percent", "%"} and self.value is not None and self.value > 100:
            errors.setdefault("value", []).append(f"A percentage cannot exceed 100 (got {self.value:g}).")
        if self.unit.strip().lower() == "fraction" and self.value is not None and self.value > 1:
            errors.setdefault("value", []).append(
                f"A fraction must lie between 0 and 1 (got {self.value:g})."
            )
        return errors


from catalog.price_models import CloudPrice, PartPrice  # noqa: E402  (Django finds models in this module)

__all__ = [
    "CatalogEntry",
    "CloudPrice",
    "Cooling",
    "Cpu",
    "EconomicsFact",
    "Gpu",
    "Interconnect",
    "PartPrice",
    "PriceKind",
    "Switch",
    "System",
]
