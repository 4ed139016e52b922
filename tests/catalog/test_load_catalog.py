"""`manage.py load_catalog`: idempotent upsert by id, respects admin edits unless --force, all or nothing."""

from __future__ import annotations

import shutil

import pytest
from django.core.management import CommandError, call_command

from catalog.loader import SEED_DIR
from catalog.models import Cooling, Cpu, Gpu, Switch, System
from catalog.tables import CATALOG_TABLES
from tests.catalog.conftest import run_load_catalog

from .test_seed import EXPECTED_ROWS

MODELS = CATALOG_TABLES


def counts(output: str) -> dict[str, tuple[int, int, int, int]]:
    """Parse the command's table: kind -> (created, updated, unchanged, skipped)."""
    table: dict[str, tuple[int, int, int, int]] = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[0] in MODELS:
            table[parts[0]] = tuple(int(part) for part in parts[1:])  # type: ignore[assignment]
    return table


@pytest.mark.django_db
def test_first_run_creates_every_seed_row():
    output = run_load_catalog()
    assert counts(output) == {name: (count, 0, 0, 0) for name, count in EXPECTED_ROWS.items()}
    for name, model in MODELS.items():
        assert model.objects.count() == EXPECTED_ROWS[name]


def test_second_run_changes_nothing(catalog):
    output = run_load_catalog()
    assert counts(output) == {name: (0, 0, count, 0) for name, count in EXPECTED_ROWS.items()}


def test_it_resolves_system_gpus_from_their_text_or_the_seed_gpu_id(catalog):
    assert System.objects.get(pk="nvidia_dgx_h100").gpu_id == "nvidia_h100_sxm5_80gb"
    assert System.objects.get(pk="nvidia_dgx_b200").gpu_id == "nvidia_b200_hgx"
    # "A100 SXM4 (40GB at launch; 80GB later)" names two GPUs; the seed's gpu_id picks the launch (320 GB) part.
    assert System.objects.get(pk="nvidia_dgx_a100").gpu_id == "nvidia_a100_sxm4_40gb"
    assert 'nvidia_dgx_a100 ("A100 SXM4' not in catalog


def test_it_parses_ranges_into_planning_figures(catalog):
    h100 = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    assert (h100.price_usd, h100.price_low_usd, h100.price_high_usd) == (27500, 25000, 30000)
    assert Cooling.objects.get(pk="air_crac_crah").rack_density_kw_typical == 17.5
    assert Switch.objects.get(pk="nvidia_qm9700").ports == 64


def test_it_leaves_rows_edited_in_the_admin_alone_and_names_them(catalog):
    Gpu.objects.filter(pk="nvidia_h100_sxm5_80gb").update(tdp_w=650, locally_edited=True)
    output = run_load_catalog()
    assert counts(output)["gpus"] == (0, 0, EXPECTED_ROWS["gpus"] - 1, 1)
    assert "Skipped gpus edited in the admin (run with --force to overwrite): nvidia_h100_sxm5_80gb" in output
    assert Gpu.objects.get(pk="nvidia_h100_sxm5_80gb").tdp_w == 650


def test_force_overwrites_admin_edits_and_clears_the_mark(catalog):
    Gpu.objects.filter(pk="nvidia_h100_sxm5_80gb").update(tdp_w=650, locally_edited=True)
    output = run_load_catalog("--force")
    assert counts(output)["gpus"] == (0, 1, EXPECTED_ROWS["gpus"] - 1, 0)
    h100 = Gpu.objects.get(pk="nvidia_h100_sxm5_80gb")
    assert (h100.tdp_w, h100.locally_edited) == (700, False)


def test_it_updates_rows_whose_seed_values_changed(catalog):
    Cpu.objects.filter(pk="amd_epyc_9654").update(tdp_w=1)
    output = run_load_catalog()
    assert counts(output)["cpus"] == (0, 1, EXPECTED_ROWS["cpus"] - 1, 0)
    assert Cpu.objects.get(pk="amd_epyc_9654").tdp_w == 360


def copy_seed(tmp_path):
    folder = tmp_path / "seed"
    shutil.copytree(SEED_DIR, folder)
    return folder


def test_a_bad_seed_row_aborts_the_whole_load_naming_file_line_and_field(db, tmp_path):
    folder = copy_seed(tmp_path)
    path = folder / "cooling.csv"
    path.write_text(
        path.read_text().replace(
            "bench_uptime_2023,benchmark,Industry average annual PUE (Uptime Institute survey),1.58",
            "bench_uptime_2023,benchmark,Industry average annual PUE (Uptime Institute survey),0.58",
            1,
        )
    )
    with pytest.raises(CommandError) as excinfo:
        call_command("load_catalog", "--seed-dir", str(folder))
    message = str(excinfo.value)
    assert "cooling.csv line 2 (bench_uptime_2023): pue_low" in message
    assert "cannot be below 1.0" in message
    assert Gpu.objects.count() == 0  # the GPUs, loaded before cooling, were rolled back too


def test_a_non_numeric_seed_cell_is_reported_before_anything_is_saved(db, tmp_path):
    folder = copy_seed(tmp_path)
    path = folder / "gpus.csv"
    path.write_text(path.read_text().replace(",SXM5,2022,80,HBM3,3.35,", ",SXM5,2022,eighty,HBM3,3.35,", 1))
    with pytest.raises(
        CommandError, match=r"gpus.csv line \d+ \(nvidia_h100_sxm5_80gb\): memory_gb: expected a number"
    ):
        call_command("load_catalog", "--seed-dir", str(folder))
    assert Gpu.objects.count() == 0
