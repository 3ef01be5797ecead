"""samples/manifest.json: one entry per shipped sample file, recomputed from the file's bytes.

Shared by extract_samples.py (real data from named package versions) and generate_fraud_sample.py
(the seeded synthetic fraud table). Rows, columns and sha256 always come from the written file, so
the manifest cannot drift from what is committed.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLES_DIR = REPO_ROOT / "samples"
MANIFEST = "manifest.json"


def describe_csv(path: Path) -> dict[str, Any]:
    """Rows (header not counted), header columns and sha256 of a CSV file."""
    data = path.read_bytes()
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        columns = next(reader)
        rows = sum(1 for _ in reader)
    return {"rows": rows, "columns": columns, "sha256": hashlib.sha256(data).hexdigest()}


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def update_manifest(samples_dir: Path, entry: dict[str, Any]) -> dict[str, Any]:
    """Adds or replaces the entry for entry["file"], with rows, columns and sha256 measured."""
    path = samples_dir / MANIFEST
    manifest: dict[str, Any] = (
        json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"samples": []}
    )
    measured = describe_csv(samples_dir / entry["file"])
    full = {
        "file": entry["file"],
        "label": entry["label"],
        "rows": measured["rows"],
        "columns": measured["columns"],
        "synthetic": entry["synthetic"],
        "source": entry["source"],
        "licence": entry["licence"],
        "sha256": measured["sha256"],
        **{k: v for k, v in entry.items() if k in ("package", "generator")},
    }
    samples = [s for s in manifest["samples"] if s["file"] != entry["file"]]
    samples.append(full)
    order = [
        "apple_google_stock.csv",
        "five_companies_stock.csv",
        "product_demand.csv",
        "credit_card_fraud_synthetic.csv",
    ]
    samples.sort(key=lambda s: order.index(s["file"]) if s["file"] in order else len(order))
    manifest["samples"] = samples
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return full
