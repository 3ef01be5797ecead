"""Loading a job's CSV dataset (each refusal and its plain-words message; the shipped samples load with the
manifest's rows, columns and sha256) and the reproducibility record (fields, determinism, seeding)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from qmlstudio_worker.jobs.run_record import (
    build_run_record,
    check_seed,
    library_versions,
    resolve_seed,
    seed_everything,
)
from qmlstudio_worker.ml.datasets import (
    DEFAULT_MAX_BYTES,
    DatasetError,
    load_csv,
    require_columns,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLES_DIR = REPO_ROOT / "samples"
MANIFEST = json.loads((SAMPLES_DIR / "manifest.json").read_text(encoding="utf-8"))["samples"]


def refusal(source: bytes | Path, **kwargs: Any) -> str:
    with pytest.raises(DatasetError) as caught:
        load_csv(source, **kwargs)
    assert str(caught.value) == caught.value.message
    return caught.value.message


# --- loading -------------------------------------------------------------------------------------------


def test_loads_utf8_csv_with_facts() -> None:
    data = "Date,Close,Note\n2024-01-02,10.5,café\n2024-01-03,11,\n".encode()
    loaded = load_csv(data)
    assert list(loaded.frame.columns) == ["Date", "Close", "Note"]
    assert loaded.frame["Close"].tolist() == [10.5, 11.0]
    assert loaded.frame["Note"].iloc[0] == "café"
    assert loaded.facts.rows == 2
    assert loaded.facts.columns == ("Date", "Close", "Note")
    assert loaded.facts.size_bytes == len(data)
    assert loaded.facts.as_dict()["column_count"] == 3
    assert loaded.facts.sha256 == hashlib.sha256(data).hexdigest()


def test_byte_order_mark_is_not_part_of_the_first_name_but_is_part_of_the_hash() -> None:
    plain = b"a,b\n1,2\n"
    with_bom = b"\xef\xbb\xbf" + plain
    assert list(load_csv(with_bom).frame.columns) == ["a", "b"]
    assert load_csv(with_bom).facts.sha256 != load_csv(plain).facts.sha256


@pytest.mark.parametrize("entry", MANIFEST, ids=[entry["file"] for entry in MANIFEST])
def test_samples_load_with_the_manifest_facts(entry: dict[str, Any]) -> None:
    loaded = load_csv(SAMPLES_DIR / entry["file"], required_columns=entry["columns"])
    assert loaded.facts.rows == entry["rows"] == len(loaded.frame.index)
    assert list(loaded.facts.columns) == entry["columns"] == list(loaded.frame.columns)
    assert loaded.facts.sha256 == entry["sha256"]
    # the same bytes given directly load the same way
    assert load_csv((SAMPLES_DIR / entry["file"]).read_bytes()).facts == loaded.facts


# --- refusals ------------------------------------------------------------------------------------------


def test_refuses_an_empty_file(tmp_path: Path) -> None:
    assert refusal(b"") == "The file is empty."
    assert refusal(b" \n\r\n\t") == "The file holds only blank space."
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    assert refusal(empty) == "The file is empty."


def test_refuses_a_header_without_data_rows() -> None:
    assert refusal(b"Date,Close\n") == "The file has a header row but no data rows."
    assert refusal(b"Date,Close\n\n\n") == "The file has a header row but no data rows."


def test_refuses_a_file_without_a_header_row() -> None:
    message = refusal(b"1,2.5,-3\n4,5,6\n")
    assert message == (
        "The first row holds only numbers, so the file has no header row; "
        "add a first row that names the columns."
    )
    message = refusal(b"\nDate,Close\n2024-01-02,1\n")
    assert message == "The first line is empty; the file must start with a header row naming the columns."


def test_refuses_binary_content() -> None:
    assert refusal(b"a,b\n1,\x002\n") == (
        "The file holds binary data, not CSV text; save it as a CSV file (UTF-8)."
    )
    assert refusal(b"PK\x03\x04\x14\x00\x06\x00rest-of-a-workbook") == (
        "The file is a zip archive or an Excel workbook (.xlsx), not CSV text; save it as a CSV file (UTF-8)."
    )
    assert "a PNG image" in refusal(b"\x89PNG\r\n\x1a\n....")


def test_refuses_text_that_is_not_utf8() -> None:
    latin1 = "Name,Price\nCafé,2\n".encode("latin-1")
    assert refusal(latin1) == "The file is not UTF-8 text (byte 0xe9 on line 2); save it as CSV UTF-8."


def test_refuses_blank_column_names() -> None:
    assert refusal(b",Close\n1,2\n") == "The header row has no name for column 1; every column needs a name."
    assert refusal(b"Date, ,Close,\n1,2,3,4\n") == (
        "The header row has no name for columns 2, 4; every column needs a name."
    )


def test_refuses_duplicate_column_names() -> None:
    assert refusal(b"Date,Close,Close\n1,2,3\n") == (
        "The header row repeats the column name 'Close'; column names must be unique."
    )
    assert refusal(b"a,b,a,b,a\n1,2,3,4,5\n") == (
        "The header row repeats the column names 'a', 'b'; column names must be unique."
    )


def test_drops_rows_whose_value_count_differs() -> None:
    # The shared CSV row rule (tests/contracts/csv-row-rule.json; every case in test_csv_rows.py).
    loaded = load_csv(b"a,b\n1,2\n3,4,5\n")
    assert (loaded.facts.rows, loaded.facts.dropped_rows) == (1, 1)
    # one extra value on every row: refused, never silently read as an index column
    assert refusal(b"a,b\n1,2,3\n4,5,6\n") == (
        "No data row has the header's 2 values: all 2 rows were dropped."
    )
    # a quoted value spanning lines counts as one value
    loaded = load_csv(b'a,b\n"x\ny",2\n1,2,3\n')
    assert loaded.frame["a"].tolist() == ["x\ny"]
    assert loaded.facts.dropped_rows == 1
    # a shorter row is dropped too, not read as missing values
    loaded = load_csv(b"a,b\n1,2\n3\n")
    assert loaded.frame["b"].tolist() == [2]
    assert loaded.facts.dropped_rows == 1


def test_refuses_other_separators() -> None:
    assert refusal(b"a;b;c\n1;2;3\n") == (
        "The header row is separated by semicolons, not commas; save the file as comma-separated CSV."
    )
    assert "separated by tabs" in refusal(b"a\tb\n1\t2\n")


def test_refuses_files_over_the_size_limit(tmp_path: Path) -> None:
    data = b"a,b\n" + b"1,2\n" * 400
    assert len(data) == 1604
    assert (
        refusal(data, max_bytes=1024)
        == "The file is 1.6 KB (1,604 bytes), over the 1 KB limit for a dataset."
    )
    big = b"x" * (DEFAULT_MAX_BYTES + 1)
    assert refusal(big) == "The file is 50 MB (52,428,801 bytes), over the 50 MB limit for a dataset."
    # a file on disk is refused from its size, before it is read
    path = tmp_path / "big.csv"
    with path.open("wb") as handle:
        handle.truncate(60 * 1024 * 1024)
    assert refusal(path) == "The file is 60 MB (62,914,560 bytes), over the 50 MB limit for a dataset."
    assert load_csv(data, max_bytes=len(data)).facts.rows == 400


def test_refuses_a_missing_file(tmp_path: Path) -> None:
    assert refusal(tmp_path / "nope.csv") == "The dataset file 'nope.csv' was not found."


def test_required_columns_are_named_when_missing() -> None:
    frame = load_csv(b"Date,Close\n2024-01-02,1\n").frame
    require_columns(frame, ["Close", "Date"])
    with pytest.raises(DatasetError) as one:
        require_columns(frame, ["Close", "Volume"])
    assert one.value.message == "The dataset has no column named 'Volume'; its columns are 'Date', 'Close'."
    with pytest.raises(DatasetError) as two:
        load_csv(b"Date,Close\n2024-01-02,1\n", required_columns=["Open", "Close", "High", "Open"])
    assert two.value.message == (
        "The dataset is missing the columns 'Open', 'High'; its columns are 'Date', 'Close'."
    )


# --- the run record ------------------------------------------------------------------------------------

BODY: dict[str, Any] = {
    "model": "LSTM",
    "features": ["Close"],
    "hidden_layers": 2,
    "epochs": 3,
    "learning_rate": 0.01,
    "splitter": {"from_index": 1, "to_index": 100},
}


def test_record_fields() -> None:
    facts = load_csv(b"Date,Close\n2024-01-02,1\n2024-01-03,2\n").facts
    record = build_run_record(BODY, seed=7, dataset=facts)
    assert set(record) == {
        "config",
        "dataset_sha256",
        "seed",
        "versions",
        "machine",
        "recorded_at",
        "dataset",
    }
    assert record["config"] == BODY
    assert record["dataset_sha256"] == facts.sha256
    assert record["dataset"] == {"rows": 2, "columns": ["Date", "Close"]}
    assert record["seed"] == 7
    for key in ("numpy", "torch", "pandas", "scikit_learn", "python", "qmlstudio_worker"):
        assert record["versions"][key], key
    assert record["versions"]["numpy"] == np.__version__
    machine = record["machine"]
    assert set(machine) >= {"platform", "python", "cpu_count"}
    assert machine["python"] == ".".join(str(part) for part in sys.version_info[:3])
    assert isinstance(machine["cpu_count"], int)
    assert machine["cpu_count"] >= 1
    assert record["recorded_at"].endswith("Z")
    json.dumps(record, allow_nan=False)  # plain, JSON-ready


def test_record_is_deterministic_apart_from_time_and_copies_the_config() -> None:
    body = json.loads(json.dumps(BODY))
    first = build_run_record(body, seed=3, dataset="ab" * 32)
    body["features"].append("Open")
    second = build_run_record(BODY, seed=3, dataset="ab" * 32)
    assert first["config"] == BODY  # a later change to the body does not reach the record
    first.pop("recorded_at")
    second.pop("recorded_at")
    assert first == second
    assert "dataset" not in first
    fixed = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert build_run_record(BODY, seed=3, recorded_at=fixed)["recorded_at"] == "2026-01-02T03:04:05Z"
    assert build_run_record(BODY, seed=3)["dataset_sha256"] is None


def test_library_versions_extend_the_worker_versions() -> None:
    from qmlstudio_worker.versions import installed_versions

    versions = library_versions()
    assert installed_versions().items() <= versions.items()


def test_seed_resolution_and_range() -> None:
    assert resolve_seed({}) == 0
    assert resolve_seed({"seed": 42}) == 42
    assert resolve_seed({}, default=5) == 5
    for bad in (-1, 2**32, 1.5, True, "3"):
        with pytest.raises(ValueError, match=r"^The seed must be"):
            check_seed(bad)


def test_seed_everything_repeats_random_and_numpy() -> None:
    seed_everything(11, torch=False)
    first = (random.random(), np.random.rand(3).tolist())
    seed_everything(11, torch=False)
    assert (random.random(), np.random.rand(3).tolist()) == first
    seed_everything(12, torch=False)
    assert (random.random(), np.random.rand(3).tolist()) != first


def test_seed_everything_imports_torch_only_when_asked(tmp_path: Path) -> None:
    """In a fresh process whose ``torch`` is a stand-in recording its seeds (importing the real one costs a
    fresh interpreter ~2 CPU-s): not imported unless asked; imported and seeded when asked; seeded by the
    default call once imported. That the real torch then repeats its draws is checked in this process."""
    stand_in = tmp_path / "torch"
    stand_in.mkdir()
    (stand_in / "__init__.py").write_text("seeds = []\ndef manual_seed(seed):\n    seeds.append(seed)\n")
    code = (
        "import sys\n"
        "from qmlstudio_worker.jobs.run_record import seed_everything\n"
        "seed_everything(5)\n"
        "seed_everything(5, torch=False)\n"
        "assert 'torch' not in sys.modules\n"
        "seed_everything(6, torch=True)\n"
        "import torch\n"
        "seed_everything(7)\n"
        "seed_everything(8, torch=False)\n"
        "assert torch.seeds == [6, 7], torch.seeds\n"
        "print('ok')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"

    import torch

    seed_everything(5, torch=True)
    a = torch.rand(3).tolist()
    seed_everything(5)
    assert torch.rand(3).tolist() == a
