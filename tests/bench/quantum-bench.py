"""`npm run bench:quantum`: the quantum benchmark table of issue #12 (a benchmark, not a timed test).

1. Iris, qiskit-machine-learning's VQC tutorial setting (4 features scaled to [0, 1], ZZFeatureMap reps 2,
   RealAmplitudes reps 3, COBYLA 100 iterations, exact sampler, train_size 0.8, random_state 123), as a
   two-class task (virginica against the rest; QML Studio's VQC path is the binary fraud classifier, and
   qiskit-ml's VQC reads two classes from the bitstring's parity the same way). The reference is written
   with Qiskit's own parts, because qiskit-machine-learning is not installed in this worker: per
   evaluation, every training row's circuit is bound and simulated with ``qiskit.quantum_info.Statevector``
   (the exact probabilities that qiskit's StatevectorSampler samples from, i.e. the exact reference
   Sampler of the tutorial), cross-entropy as qiskit-ml's VQC, ``scipy.optimize.minimize(COBYLA)``.
   Ours: ``qmlstudio_worker.quantum.vqc.train_vqc_fraud`` on the same split (it chooses its feature angle
   range on a validation part of the training rows: its time includes those trial trainings).
2. Hybrid QNN epoch time on the stock example at 4 and 8 qubits against the classical LSTM (the handler
   through ``run_job``; per epoch = (time at 20 epochs - time at 5 epochs) / 15, each the fastest of 3 runs after a warm-up
   run (the body's minimum is 5 epochs), so loading is not counted).
3. Portfolio reference: qiskit-finance tutorial data recipe (RandomDataProvider, 4 assets, seed 123,
   2016-01-01 to 2016-01-30), risk factor 0.5, budget 2: exact optimum, SamplingVQE (RealAmplitudes
   reps 3, COBYLA 500; CVaR aggregation 0.5, the worker's default, and the plain mean for comparison)
   and QAOA (reps 3, COBYLA 250) as in the tutorial.

Sections: ``python tests/bench/quantum-bench.py [iris] [hybrid] [portfolio]`` (all by default).
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "worker"))

SEED = 123


def iris_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    iris = load_iris()
    features = MinMaxScaler().fit_transform(iris.data)
    labels = (iris.target == 2).astype(int)  # virginica against the rest
    x_train, x_test, y_train, y_test = train_test_split(
        features, labels, train_size=0.8, random_state=SEED
    )
    return x_train, x_test, y_train, y_test


def reference_vqc(
    x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray
) -> tuple[np.ndarray, int]:
    """Qiskit circuits, exact Statevector probabilities, parity readout, cross-entropy, scipy COBYLA."""
    from qiskit.circuit.library import real_amplitudes, zz_feature_map
    from qiskit.quantum_info import Statevector
    from scipy.optimize import minimize

    feature_map = zz_feature_map(4)
    ansatz = real_amplitudes(4, reps=3)
    circuit = feature_map.compose(ansatz)
    odd = np.array([(z).bit_count() % 2 for z in range(16)], dtype=bool)
    evaluations = 0

    def p_odd(x: np.ndarray, weights: np.ndarray) -> float:
        bound = circuit.assign_parameters(
            {
                **dict(zip(feature_map.parameters, x, strict=True)),
                **dict(zip(ansatz.parameters, weights, strict=True)),
            }
        )
        return float(Statevector(bound).probabilities()[odd].sum())

    def loss(weights: np.ndarray) -> float:
        nonlocal evaluations
        evaluations += 1
        p = np.array([p_odd(x, weights) for x in x_train])
        p_true = np.where(y_train == 1, p, 1 - p)
        return float(-np.mean(np.log(np.clip(p_true, 1e-10, None))))

    x0 = np.random.default_rng(SEED).random(ansatz.num_parameters)
    found = minimize(loss, x0, method="COBYLA", options={"maxiter": 100})
    scores = np.array([p_odd(x, found.x) for x in x_test])
    return (scores >= 0.5).astype(int), evaluations


def bench_iris() -> list[list[str]]:
    from qmlstudio_worker.quantum.vqc import train_vqc_fraud

    x_train, x_test, y_train, y_test = iris_split()
    started = time.perf_counter()
    predicted, evaluations = reference_vqc(x_train, y_train, x_test)
    reference_seconds = time.perf_counter() - started
    reference_accuracy = float(np.mean(predicted == y_test))
    started = time.perf_counter()
    result, _ = train_vqc_fraud(
        x_train,
        y_train,
        x_test,
        y_test,
        pqc="RealAmplitudes",
        reps=3,
        optimizer="COBYLA",
        maxiter=100,
        seed=SEED,
    )
    ours_seconds = time.perf_counter() - started
    return [
        [
            "Iris VQC reference (qiskit circuits + Statevector + scipy COBYLA)",
            f"{reference_seconds:.2f} s",
            f"test accuracy {reference_accuracy:.3f}; {evaluations} evaluations x {len(y_train)} circuits",
        ],
        [
            "Iris VQC, QML Studio fraud VQC path (same split)",
            f"{ours_seconds:.2f} s",
            (
                f"test accuracy {result['metrics']['accuracy']:.3f}; ROC-AUC {result['metrics']['roc_auc']:.3f}; "
                f"angle range {result['config']['angle_range']:.3g} rad (validation); "
                f"speed-up {reference_seconds / ours_seconds:.1f}x"
            ),
        ],
    ]


def _extension(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    return {
        "dataset": {
            "path": str(path),
            "sha256": hashlib.sha256(data).hexdigest(),
            "row_count": data.count(b"\n") - 1,
            "columns": data.split(b"\n", 1)[0].decode().strip().split(","),
            "label": path.name,
            "synthetic": False,
        },
        "normalization": "[0,1]",
        "missing_values": "impute_average",
        "target_column": None,
        "seed": 42,
    }


def _run_stock(body: dict[str, Any]) -> float:
    from qmlstudio_worker.protocol import Emitter
    from qmlstudio_worker.runner import run_job

    envelope = {
        "kind": "stock-price-prediction",
        "job_id": "1",
        "params": body,
        "extension": _extension(REPO / "samples" / "apple_google_stock.csv"),
    }
    stream = io.StringIO()
    started = time.perf_counter()
    code = run_job(json.dumps(envelope), Emitter(stream))
    seconds = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(stream.getvalue().splitlines()[-1])
    return seconds


def bench_hybrid() -> list[list[str]]:
    fixture = json.loads(
        (
            REPO
            / "src"
            / "generated"
            / "fixtures"
            / "stock-price-prediction.job-requests.json"
        ).read_text()
    )
    bodies = {r["name"]: r["body"] for r in fixture["requests"]}
    quantum, classical = (
        bodies["example with model_type Quantum"],
        bodies["example with model_type Classical"],
    )

    def per_epoch(body: dict[str, Any]) -> float:
        _run_stock(
            {**body, "epochs": 5}
        )  # warm-up: the first run pays for imports and torch's start
        long = min(_run_stock({**body, "epochs": 20}) for _ in range(3))
        short = min(_run_stock({**body, "epochs": 5}) for _ in range(3))
        return (long - short) / 15

    lstm = per_epoch(classical)
    rows = [
        ["Stock example, LSTM (classical)", f"{lstm * 1000:.1f} ms/epoch", "baseline"]
    ]
    for qubits in (4, 8):
        seconds = per_epoch({**quantum, "qubits": qubits})
        rows.append(
            [
                f"Stock example, hybrid QNN {qubits} qubits",
                f"{seconds * 1000:.1f} ms/epoch",
                f"{seconds / lstm:.2f}x the LSTM's epoch time",
            ]
        )
    return rows


def random_data_provider(
    seed: int = SEED, assets: int = 4, days: int = 29
) -> np.ndarray:
    """qiskit-finance's RandomDataProvider prices: a cumulative standard-normal walk from an integer start."""
    generator = np.random.default_rng(seed)
    prices = []
    for _ in range(assets):
        walk = pd.DataFrame(
            generator.standard_normal(days)
        ).cumsum() + generator.integers(1, 101)
        prices.append(np.maximum(walk[0].to_numpy(), 0.0))
    return np.asarray(prices)


def bench_portfolio() -> list[list[str]]:
    from qmlstudio_worker.ml.portfolio import PortfolioProblem, solve_exact
    from qmlstudio_worker.quantum.portfolio_vqe import solve_qaoa, solve_sampling_vqe

    prices = random_data_provider()
    returns = prices[:, 1:] / prices[:, :-1] - 1
    problem = PortfolioProblem(
        assets=tuple(f"TICKER{i}" for i in range(4)),
        mu=returns.mean(axis=1),
        sigma=np.cov(returns, rowvar=True),
        risk_factor=0.5,
        budget=2,
    )
    started = time.perf_counter()
    optimum = solve_exact(problem)[0]
    rows = [
        [
            "Portfolio exact optimum (enumeration)",
            f"{time.perf_counter() - started:.3f} s",
            f"x = {list(optimum.bits)}, value {optimum.objective:.4f}",
        ]
    ]
    for name, solve, options in (
        (
            "SamplingVQE (RealAmplitudes reps 3, COBYLA 500, CVaR 0.5)",
            solve_sampling_vqe,
            {"reps": 3, "maxiter": 500},
        ),
        (
            "SamplingVQE (RealAmplitudes reps 3, COBYLA 500, mean energy)",
            solve_sampling_vqe,
            {"reps": 3, "maxiter": 500, "aggregation": None},
        ),
        ("QAOA (reps 3, COBYLA 250)", solve_qaoa, {"reps": 3, "maxiter": 250}),
    ):
        started = time.perf_counter()
        solved = solve(problem, optimizer="COBYLA", seed=SEED, **options)
        rows.append(
            [
                f"Portfolio {name}",
                f"{time.perf_counter() - started:.3f} s",
                (
                    f"x = {solved['bits']}, value {solved['objective']:.4f}, reached optimum {solved['found_optimum']}, "
                    f"optimum probability {solved['optimum_probability']:.3f}"
                ),
            ]
        )
    return rows


def main() -> None:
    import torch

    torch.set_num_threads(1)  # a shared machine: one thread, comparable runs
    sections = {"iris": bench_iris, "hybrid": bench_hybrid, "portfolio": bench_portfolio}
    chosen = sys.argv[1:] or list(sections)
    unknown = [name for name in chosen if name not in sections]
    if unknown:
        raise SystemExit(f"unknown section(s) {', '.join(unknown)}; expected {', '.join(sections)}")
    rows: list[list[str]] = []
    for section in (sections[name] for name in chosen):
        rows.extend(section())
        print(f"{section.__name__}: {rows[-1]}", file=sys.stderr, flush=True)
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    print(
        "| "
        + " | ".join(
            h.ljust(w) for h, w in zip(("case", "time", "result"), widths, strict=True)
        )
        + " |"
    )
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(
            "| "
            + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True))
            + " |"
        )


if __name__ == "__main__":
    main()
