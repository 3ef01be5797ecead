"""The landing demo's market data (samples/market/): the manifest's market_data entries describe the
committed files exactly, every demo symbol is real data in the stream's layout, and a close-only source
leaves the columns it does not carry empty instead of inventing them."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLES_DIR = REPO_ROOT / "samples"
DEMO_SYMBOLS = ["AAPL", "GOOG", "MSFT", "AMZN", "TSLA", "META", "NVDA", "JPM", "WMT", "PG"]


def entries() -> list[dict[str, Any]]:
    return json.loads((SAMPLES_DIR / "manifest.json").read_text(encoding="utf-8"))["market_data"]


def test_every_demo_symbol_has_real_data() -> None:
    assert [e["symbol"] for e in entries()] == DEMO_SYMBOLS
    assert all(e["synthetic"] is False and e["package"]["version"] for e in entries())


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["symbol"])
def test_entry_matches_the_committed_file(entry: dict[str, Any]) -> None:
    path = SAMPLES_DIR / entry["file"]
    assert entry["file"] == f"market/{entry['symbol']}.csv"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["Date", "Open", "High", "Low", "Close", "Volume"]
    body = rows[1:]
    assert len(body) == entry["rows"]
    dates = [r[0] for r in body]
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", d) for d in dates)
    assert dates == sorted(set(dates)), "one row per day, by date"
    assert (dates[0], dates[-1]) == (entry["first_date"], entry["last_date"])
    assert all(float(r[4]) > 0 for r in body)
    if entry["close_only"]:
        assert all(r[1] == r[2] == r[3] == r[5] == "" for r in body)
    else:
        assert all(float(r[3]) <= float(r[4]) <= float(r[2]) for r in body), "low <= close <= high"
