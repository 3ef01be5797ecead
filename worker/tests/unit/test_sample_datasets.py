"""The shipped sample datasets (samples/): the manifest describes the committed files exactly, and the
synthetic fraud table and delivery locations are what their seeded generators make (same seed, same
bytes)."""

from __future__ import annotations

import csv
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLES_DIR = REPO_ROOT / "samples"
sys.path.insert(0, str(REPO_ROOT / "worker" / "scripts"))

import generate_delivery_locations  # noqa: E402
import generate_fraud_sample  # noqa: E402
from samples_manifest import describe_csv, write_csv  # noqa: E402


def manifest() -> list[dict[str, Any]]:
    return json.loads((SAMPLES_DIR / "manifest.json").read_text(encoding="utf-8"))["samples"]


@pytest.mark.parametrize("entry", manifest(), ids=lambda e: e["file"])
def test_manifest_matches_the_committed_file(entry: dict[str, Any]) -> None:
    path = SAMPLES_DIR / entry["file"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == entry["columns"]
    assert len(rows) - 1 == entry["rows"]
    assert all(len(r) == len(entry["columns"]) for r in rows[1:])
    assert ("package" in entry) != ("generator" in entry)
    assert entry["synthetic"] == ("generator" in entry)


# A synthetic file's name says so, except where a problem schema fixes the name (vehicle-routing.json
# names delivery_locations.csv); its label and source say so in every case.
SCHEMA_NAMED_FILES = {"delivery_locations.csv"}


def test_synthetic_data_is_labelled_so() -> None:
    synthetic = [e for e in manifest() if e["synthetic"]]
    assert [e["file"] for e in synthetic] == ["credit_card_fraud_synthetic.csv", "delivery_locations.csv"]
    for entry in synthetic:
        assert "synthetic" in entry["file"] or entry["file"] in SCHEMA_NAMED_FILES
        assert "(synthetic)" in entry["label"]
        assert entry["source"].startswith("Synthetic")


def test_samples_stay_small() -> None:
    total = sum((SAMPLES_DIR / e["file"]).stat().st_size for e in manifest())
    assert total < 8 * 1024 * 1024


def test_generator_is_deterministic_for_a_seed() -> None:
    first = generate_fraud_sample.generate(seed=7, rows=2000)
    assert generate_fraud_sample.generate(seed=7, rows=2000) == first
    assert generate_fraud_sample.generate(seed=8, rows=2000) != first
    header, rows = first
    assert header == ["Time", *(f"V{i}" for i in range(1, 29)), "Amount", "Class"]
    assert sum(r[-1] == "1" for r in rows) == 10  # 0.5 % of 2000
    times = [int(r[0]) for r in rows]
    assert times == sorted(times)
    assert times[0] >= 0
    assert times[-1] < 172_800


def test_committed_fraud_file_is_the_generators_output(tmp_path: Path) -> None:
    entry = next(e for e in manifest() if e["file"] == generate_fraud_sample.FILE)
    seed = entry["generator"]["seed"]
    header, rows = generate_fraud_sample.generate(seed=seed, rows=entry["rows"])
    out = tmp_path / generate_fraud_sample.FILE
    write_csv(out, header, rows)
    assert describe_csv(out) == {
        "rows": entry["rows"],
        "columns": entry["columns"],
        "sha256": entry["sha256"],
    }


def test_delivery_locations_are_what_the_generator_makes() -> None:
    header, rows = generate_delivery_locations.generate()
    with (SAMPLES_DIR / "delivery_locations.csv").open(newline="", encoding="utf-8") as handle:
        committed = list(csv.reader(handle))
    assert committed == [header, *rows]
    assert header == ["id", "latitude", "longitude", "demand"]
    assert len(rows) == 4
    assert rows[0][3] == "0"  # the depot first, with no load
    assert all(10 <= int(r[3]) <= 40 for r in rows[1:])
    assert sum(int(r[3]) for r in rows) <= 2 * 100  # the example's 2 vehicles of capacity 100
    assert generate_delivery_locations.generate(seed=7) != (header, rows)
