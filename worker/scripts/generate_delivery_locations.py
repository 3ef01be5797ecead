"""Generates samples/delivery_locations.csv: a SYNTHETIC depot and 3 delivery stops.

    worker/.venv/bin/python worker/scripts/generate_delivery_locations.py [--seed 20261123] [--stops 3]

The vehicle-routing example (schemas/problems/vehicle-routing.json) names this sample; no package
carries a small delivery table, so this seeded generator makes one: columns id, latitude, longitude,
demand; row 1 is the depot (demand 0, the example's depot row), the stops lie within about 3 km of it
(uniform offsets of at most 0.03 degrees) with integer demands 10-40, so two vehicles of capacity 100
(the example's settings) can serve them. Three stops keep the quantum formulation at 14 qubits (the
simulator's limit is 16; every extra stop adds several). The same seed gives the same bytes (numpy's
PCG64 generator, fixed decimal formatting). No real addresses.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from samples_manifest import SAMPLES_DIR, write_synthetic_sample

FILE = "delivery_locations.csv"
LABEL = "Delivery Locations (synthetic)"
DEFAULT_SEED = 20261123
DEFAULT_STOPS = 3
DEPOT = (52.5200, 13.4050)  # an arbitrary city-centre point (degrees); only the distances matter
MAX_OFFSET = 0.03  # degrees, about 3 km
COLUMNS = ["id", "latitude", "longitude", "demand"]


def generate(seed: int = DEFAULT_SEED, stops: int = DEFAULT_STOPS) -> tuple[list[str], list[list[str]]]:
    """The header and rows (depot first) for a seed (deterministic)."""
    rng = np.random.default_rng(seed)
    offsets = rng.uniform(-MAX_OFFSET, MAX_OFFSET, size=(stops, 2))
    demands = rng.integers(10, 41, size=stops)
    rows = [["1", f"{DEPOT[0]:.4f}", f"{DEPOT[1]:.4f}", "0"]]
    for i in range(stops):
        lat, lon = DEPOT[0] + offsets[i, 0], DEPOT[1] + offsets[i, 1]
        rows.append([str(i + 2), f"{lat:.4f}", f"{lon:.4f}", str(int(demands[i]))])
    return COLUMNS, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--stops", type=int, default=DEFAULT_STOPS)
    parser.add_argument("--samples-dir", type=Path, default=SAMPLES_DIR)
    args = parser.parse_args()
    header, rows = generate(args.seed, args.stops)
    write_synthetic_sample(
        args.samples_dir,
        {"file": FILE, "label": LABEL},
        header,
        rows,
        "worker/scripts/generate_delivery_locations.py",
        args.seed,
        f": a depot and {args.stops} stops; no real addresses",
    )


if __name__ == "__main__":
    main()
