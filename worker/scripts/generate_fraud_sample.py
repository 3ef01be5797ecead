"""Generates samples/credit_card_fraud_synthetic.csv: a SYNTHETIC credit-card fraud table.

    worker/.venv/bin/python worker/scripts/generate_fraud_sample.py [--seed 20240917] [--rows 20000]

No package carries a real labelled card-fraud table (the public ULB set is not packaged), so this
seeded generator makes one in the ULB layout: Time (seconds from the first transaction, two days),
V1..V28 (anonymised, PCA-like components: independent, centred, variance falling with the index),
Amount and Class (1 = fraud, 0.5 %). Fraud rows are shifted on a handful of components (as
V14, V12, V10, V17, V4 and V11 separate fraud in the real set) by less than the spread, with a share
of frauds that look ordinary, so a model can learn it but not perfectly. The same seed gives the
same bytes (numpy's PCG64 generator, fixed decimal formatting). Measured baseline: docs/datasets.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from samples_manifest import SAMPLES_DIR, write_synthetic_sample

FILE = "credit_card_fraud_synthetic.csv"
LABEL = "Credit Card Fraud Detection (synthetic)"
DEFAULT_SEED = 20240917
DEFAULT_ROWS = 20000
FRAUD_RATE = 0.005
TWO_DAYS = 172_800
COLUMNS = ["Time", *(f"V{i}" for i in range(1, 29)), "Amount", "Class"]
# Mean shift of fraud rows on a few components, in units of that component's spread.
FRAUD_SHIFT = {14: -2.2, 12: -1.8, 10: -1.5, 17: -1.6, 4: 1.5, 11: 1.2, 3: -0.9, 7: -0.7}
# Share of frauds drawn like ordinary transactions (no shift): the hard cases.
CAMOUFLAGED = 0.25


def generate(seed: int = DEFAULT_SEED, rows: int = DEFAULT_ROWS) -> tuple[list[str], list[list[str]]]:
    """The header and rows for a seed (deterministic)."""
    rng = np.random.default_rng(seed)
    frauds = max(1, round(rows * FRAUD_RATE))
    labels = np.zeros(rows, dtype=np.int64)
    labels[rng.choice(rows, size=frauds, replace=False)] = 1

    # Transactions over two days, busier by day than by night (a daily cycle).
    hours = rng.uniform(0, 48, size=rows * 3)
    keep = rng.uniform(0, 1, size=hours.size) < 0.35 + 0.65 * np.sin(np.pi * (hours % 24) / 24) ** 2
    times = np.sort((hours[keep][:rows] * 3600).astype(np.int64))
    if times.size < rows:  # pragma: no cover - the thinning keeps about two thirds
        raise RuntimeError("not enough transaction times drawn")
    times = times.clip(0, TWO_DAYS - 1)

    spread = np.linspace(1.9, 0.3, 28)  # falling variance, like PCA components
    components = rng.standard_normal((rows, 28)) * spread
    # Heavier tails on a few components, as in the real set.
    components[:, :3] += rng.standard_t(3, size=(rows, 3)) * 0.3
    shifted = (labels == 1) & (rng.uniform(0, 1, size=rows) >= CAMOUFLAGED)
    for index, shift in FRAUD_SHIFT.items():
        components[shifted, index - 1] += shift * spread[index - 1]
        # Frauds are also more spread out on the separating components.
        components[shifted, index - 1] += rng.standard_normal(int(shifted.sum())) * 0.6 * spread[index - 1]

    amounts = rng.lognormal(mean=3.2, sigma=1.3, size=rows)
    amounts[labels == 1] = rng.lognormal(mean=3.6, sigma=1.6, size=int(labels.sum()))
    amounts = np.round(np.minimum(amounts, 25_000.0), 2)

    table = [
        [str(int(t)), *(f"{v:.4f}" for v in comps), f"{a:.2f}", str(int(c))]
        for t, comps, a, c in zip(times, components, amounts, labels, strict=True)
    ]
    return COLUMNS, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS)
    parser.add_argument("--samples-dir", type=Path, default=SAMPLES_DIR)
    args = parser.parse_args()
    header, rows = generate(args.seed, args.rows)
    write_synthetic_sample(
        args.samples_dir,
        {"file": FILE, "label": LABEL},
        header,
        rows,
        "worker/scripts/generate_fraud_sample.py",
        args.seed,
        " in the ULB credit-card fraud layout; no real transactions",
    )


if __name__ == "__main__":
    main()
