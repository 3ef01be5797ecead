"""`npm run bench:quantum`: the quantum benchmark table of issue #12 (a benchmark, not a timed test).

1. Iris, qiskit-machine-learning's VQC tutorial ("Training a Quantum Model on a Real Dataset": 4 features
   scaled by MinMaxScaler to [0, 1], train_size 0.8 and random_state 123, algorithm_globals.random_seed 123
   for the initial point, zz_feature_map reps 1, real_amplitudes reps 3, COBYLA 100 iterations,
   qiskit's StatevectorSampler), with the real ``qiskit_machine_learning.algorithms.VQC`` (0.9.0, in
   worker/requirements.lock) in this process. Three rows:
   a. the tutorial as published: 3 classes. qiskit-ml 0.9's default readout is ``x % 2`` (qubit 0), so
      class 2 is never predicted; its test accuracy (0.57) is the tutorial's own printed score;
   b. the reference on the task and circuit our VQC runs: QML Studio's VQC path is the binary fraud
      classifier (it has no 3-class mode), so virginica against the rest, zz_feature_map reps 2 (full
      entanglement) + real_amplitudes reps 3, parity readout (passed as ``interpret``: the model our VQC
      computes, see worker/tests/unit/test_vqc_qiskit_ml.py), COBYLA 100, StatevectorSampler;
   c. ours: ``quantum.variational_classifier.train_variational_classifier`` (what the fraud VQC runs) on
      the same split, features and labels as b. It also maps the features to angles its own way
      (standardized, angle range chosen on a validation part of the training rows: its time includes those
      trial trainings) and weighs the classes (balanced cross-entropy; qiskit-ml: plain cross-entropy).
   Times are wall clock and this process's CPU time (the machine may be shared: CPU time is the steadier
   figure); the speed-up is against b (same task), and against a.
   The StatevectorSampler samples 1,024 shots per circuit (its default, as in the tutorial); its seed is
   fixed (123) so the rows repeat. c runs after a 2-iteration warm-up call, and the reference's timer starts
   after its imports: no row counts loading.
   Measured 2026-11-26 (2 cores shared with other jobs): a 194 s (CPU 55.8 s), test accuracy 0.567;
   b 207 s (CPU 64.1 s), 0.767; c 4.1 s (CPU 1.17 s), 0.933 (ROC-AUC 0.995): 51x faster wall, 55x CPU.
2. Hybrid QNN epoch time on the stock example at 4 and 8 qubits against the classical LSTM (the handler
   through ``run_job``; per epoch = (time at 20 epochs - time at 5 epochs) / 15, each the fastest of 3 runs after a warm-up
   run (the body's minimum is 5 epochs), so loading is not counted).
3. Portfolio reference: qiskit-finance tutorial data recipe (RandomDataProvider, 4 assets, seed 123,
   2016-01-01 to 2016-01-30), risk factor 0.5, budget 2: exact optimum, SamplingVQE (RealAmplitudes
   reps 3, COBYLA 500; CVaR aggregation 0.5, the worker's default, and the plain mean for comparison)
   and QAOA (reps 3, COBYLA 250) as in the tutorial.

4. Noisy training (``noisy``): the hybrid QNN's epoch under the fake_kyiv noise model at 4 and 8 qubits
   (trained on the torch density simulation, test windows on Aer), per epoch = time at 6 epochs - time at 5
   epochs (one run each after a warm-up run; an 8-qubit epoch takes tens of seconds), next to the resource
   estimate's difference for the same bodies; and the fraud VQC's ADAM step under fake_kyiv on the fraud
   sample (200 training rows through the density simulation per step, test rows on Aer), per step =
   (time at 30 steps - time at 10) / 20, next to the estimate's.
   Measured 2026-11-26 (2 cores shared with other helpers' jobs): hybrid 4 qubits 0.25 s/epoch (6 epochs
   1.0 s; the difference of single runs is mostly noise at this size), estimate 0.03 s/epoch (6 epochs
   0.7 s); hybrid 8 qubits 27.2 s/epoch (6 epochs 171 s), estimate 17.4 s/epoch (110 s) when it timed
   2-row passes, 259 s for 6 epochs once it timed the run's 32-row passes (not re-benched); VQC ADAM
   0.656 s/step (30 steps 36.5 s), estimate 0.558 s/step (28.6 s).

5. PennyLane (``pennylane``): default.qubit (backprop) and lightning.qubit (adjoint) on the same VQC and
   hybrid QNN circuits, data, initial parameters, Adam and steps as ours at 4, 8 and 12 qubits, run in the
   benchmark-only venv tests/bench/.venv-pennylane by tests/bench/pennylane_reference.py; see
   docs/benchmarks.md for the setup and the measured numbers.

Sections: ``python tests/bench/quantum-bench.py [iris] [hybrid] [portfolio] [noisy] [pennylane]`` (all by
default); ``--quick`` runs the pennylane section alone at 4 qubits, 3 steps, 1 epoch (a smoke run);
``--qubits=8,12`` chooses the pennylane section's sizes, ``--pennylane-devices=lightning.qubit`` its
PennyLane devices (both by default).
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


def iris_split(
    three_classes: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The tutorial's features and split; labels 0/1/2, or 1 = virginica and 0 = the rest."""
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    iris = load_iris()
    features = MinMaxScaler().fit_transform(iris.data)
    labels = iris.target if three_classes else (iris.target == 2).astype(int)
    x_train, x_test, y_train, y_test = train_test_split(
        features, labels, train_size=0.8, random_state=SEED
    )
    return x_train, x_test, y_train, y_test


def parity(bitstring: int) -> int:
    return int(bitstring).bit_count() % 2


def reference_vqc(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    feature_map_reps: int,
    parity_readout: bool,
) -> tuple[np.ndarray, int, float, float]:
    """qiskit-machine-learning's VQC as the tutorial builds it; (test predictions, objective evaluations,
    wall seconds, CPU seconds) of its fit."""
    from qiskit.circuit.library import real_amplitudes, zz_feature_map
    from qiskit.primitives import StatevectorSampler
    from qiskit_machine_learning.algorithms.classifiers import VQC
    from qiskit_machine_learning.optimizers import COBYLA
    from qiskit_machine_learning.utils import algorithm_globals

    evaluations = 0

    def count(_weights: np.ndarray, _value: float) -> None:
        nonlocal evaluations
        evaluations += 1

    readout: dict[str, Any] = (
        {"interpret": parity, "output_shape": 2} if parity_readout else {}
    )
    feature_map = (
        zz_feature_map(4, reps=feature_map_reps)
        if feature_map_reps == 1
        else zz_feature_map(4, reps=feature_map_reps, entanglement="full")
    )
    vqc = VQC(
        sampler=StatevectorSampler(seed=SEED),
        feature_map=feature_map,
        ansatz=real_amplitudes(4, reps=3),
        optimizer=COBYLA(maxiter=100),
        callback=count,
        **readout,
    )
    algorithm_globals.random_seed = SEED  # the tutorial's initial point
    wall, cpu = time.perf_counter(), time.process_time()
    vqc.fit(x_train, y_train)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return np.asarray(vqc.predict(x_test)), evaluations, wall, cpu


def bench_iris() -> list[list[str]]:
    from qmlstudio_worker.quantum.variational_classifier import (
        train_variational_classifier,
    )

    rows: list[list[str]] = []
    x_train, x_test, y_train, y_test = iris_split(three_classes=True)
    predicted, evaluations, tutorial_wall, tutorial_cpu = reference_vqc(
        x_train, y_train, x_test, feature_map_reps=1, parity_readout=False
    )
    rows.append(
        [
            "Iris a. qiskit-ml VQC tutorial as published (3 classes, zz reps 1, StatevectorSampler)",
            f"{tutorial_wall:.2f} s (CPU {tutorial_cpu:.2f} s)",
            (
                f"test accuracy {np.mean(predicted == y_test):.3f}; {evaluations} evaluations x "
                f"{len(y_train)} circuits; classes predicted "
                f"{sorted(set(predicted.astype(int).tolist()))} (x % 2 readout)"
            ),
        ]
    )
    print(f"bench_iris: {rows[-1]}", file=sys.stderr, flush=True)

    x_train, x_test, y_train, y_test = iris_split()
    predicted, evaluations, reference_wall, reference_cpu = reference_vqc(
        x_train, y_train, x_test, feature_map_reps=2, parity_readout=True
    )
    rows.append(
        [
            "Iris b. qiskit-ml VQC, our task and circuit (virginica vs rest, zz reps 2, parity)",
            f"{reference_wall:.2f} s (CPU {reference_cpu:.2f} s)",
            f"test accuracy {np.mean(predicted == y_test):.3f}; {evaluations} evaluations x {len(y_train)} circuits",
        ]
    )
    print(f"bench_iris: {rows[-1]}", file=sys.stderr, flush=True)

    train_variational_classifier(
        x_train[:20], y_train[:20], x_test, y_test, maxiter=2, seed=SEED
    )  # warm-up: imports
    wall, cpu = time.perf_counter(), time.process_time()
    result, _ = train_variational_classifier(
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
    ours_wall, ours_cpu = time.perf_counter() - wall, time.process_time() - cpu
    rows.append(
        [
            "Iris c. QML Studio fraud VQC path (same split and labels as b)",
            f"{ours_wall:.2f} s (CPU {ours_cpu:.2f} s)",
            (
                f"test accuracy {result['metrics']['accuracy']:.3f}; ROC-AUC {result['metrics']['roc_auc']:.3f}; "
                f"angle range {result['config']['angle_range']:.3g} rad (validation); "
                f"speed-up against b {reference_wall / ours_wall:.1f}x wall, {reference_cpu / ours_cpu:.1f}x CPU; "
                f"against a {tutorial_wall / ours_wall:.1f}x wall, {tutorial_cpu / ours_cpu:.1f}x CPU"
            ),
        ]
    )
    return rows


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


def _run_stock(
    body: dict[str, Any],
    noise_model: str | None = None,
    kind: str = "stock-price-prediction",
    csv: str = "apple_google_stock.csv",
) -> float:
    from qmlstudio_worker.jobs.runner import run_job
    from qmlstudio_worker.protocol import Emitter

    extension = _extension(REPO / "samples" / csv)
    if noise_model is not None:
        extension["quantum_noise_model"] = noise_model
    envelope = {
        "kind": kind,
        "job_id": "1",
        "params": body,
        "extension": extension,
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


def _example(kind: str) -> dict[str, Any]:
    fixture = json.loads(
        (
            REPO / "src" / "generated" / "fixtures" / f"{kind}.job-requests.json"
        ).read_text()
    )
    bodies = {r["name"]: r["body"] for r in fixture["requests"]}
    body: dict[str, Any] = bodies["example with model_type Quantum"]
    return body


def bench_noisy() -> list[list[str]]:
    from qmlstudio_worker.jobs.resource_estimate import estimate

    noise = "fake_kyiv"
    stock_rows = (REPO / "samples" / "apple_google_stock.csv").read_bytes().count(
        b"\n"
    ) - 1
    quantum = _example("stock-price-prediction")
    rows: list[list[str]] = []
    _run_stock(
        {**quantum, "epochs": 5}, noise
    )  # warm-up: imports, torch, Aer, the noise model

    def estimated(
        kind: str, body: dict[str, Any], rows: int, field: str, n: int
    ) -> tuple[float, float]:
        """(the estimate's seconds for n epochs/steps, its seconds per epoch/step): the per-unit figure
        from n and n + 100 (each estimate re-times its setup; 100 units apart that noise is small)."""
        low, high = (
            float(
                estimate(kind, {**body, field: count}, rows=rows, noise_model=noise)[
                    "estimated_seconds"
                ]
            )
            for count in (n, n + 100)
        )
        return low, (high - low) / 100

    for qubits in (4, 8):
        body = {**quantum, "qubits": qubits}
        six = _run_stock({**body, "epochs": 6}, noise)
        seconds = six - _run_stock({**body, "epochs": 5}, noise)
        total, per_epoch = estimated(
            "stock-price-prediction", body, stock_rows, "epochs", 6
        )
        rows.append(
            [
                f"Stock example, hybrid QNN {qubits} qubits, trained under {noise}",
                f"{seconds:.2f} s/epoch (6 epochs: {six:.1f} s)",
                f"estimate {per_epoch:.2f} s/epoch (6 epochs: {total:.1f} s)",
            ]
        )
    fraud = {**_example("fraud-detection"), "optimizer_alg": "ADAM"}
    fraud_csv = "credit_card_fraud_synthetic.csv"
    fraud_rows = (REPO / "samples" / fraud_csv).read_bytes().count(b"\n") - 1
    timed = {
        steps: _run_stock(
            {**fraud, "optimizer_alg_maxiter": steps},
            noise,
            "fraud-detection",
            fraud_csv,
        )
        for steps in (10, 30)
    }
    per_step = (timed[30] - timed[10]) / 20
    total, estimated_step = estimated(
        "fraud-detection", fraud, fraud_rows, "optimizer_alg_maxiter", 30
    )
    rows.append(
        [
            f"Fraud sample, VQC ADAM under {noise} (200 training rows per step)",
            f"{per_step:.3f} s/step (30 steps: {timed[30]:.1f} s)",
            f"estimate {estimated_step:.3f} s/step (30 steps: {total:.1f} s)",
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
    from qmlstudio_worker.problems.portfolio_optimization.quantum_solver import (
        solve_qaoa,
        solve_sampling_vqe,
    )
    from qmlstudio_worker.problems.portfolio_optimization.selection import (
        PortfolioProblem,
        solve_exact,
    )

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


PENNYLANE_DIR = REPO / "tests" / "bench"
PENNYLANE_VENV = PENNYLANE_DIR / ".venv-pennylane"
PENNYLANE_REQUIREMENTS = PENNYLANE_DIR / "requirements-pennylane.txt"
QUICK = False  # --quick: the pennylane section at 4 qubits, 3 VQC steps, 1 hybrid epoch (a smoke run)
QUBITS: tuple[int, ...] | None = (
    None  # --qubits=8,12: only these sizes in the pennylane section
)
# --pennylane-devices=lightning.qubit: only these PennyLane devices (default.qubit's 12-qubit run, one
# circuit per row, takes most of the time on a loaded machine)
PENNYLANE_DEVICES: tuple[str, ...] = ("default.qubit", "lightning.qubit")


def pennylane_python() -> Path:
    """The benchmark-only venv's python, created (and the pinned requirements installed) on first use or
    when the requirements file changed. Never the worker's venv: PennyLane is no product dependency."""
    import subprocess

    python = PENNYLANE_VENV / "bin" / "python"
    stamp = PENNYLANE_VENV / "requirements.sha256"
    wanted = hashlib.sha256(PENNYLANE_REQUIREMENTS.read_bytes()).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    print(
        f"creating {PENNYLANE_VENV} from {PENNYLANE_REQUIREMENTS.name}",
        file=sys.stderr,
        flush=True,
    )
    subprocess.run(
        [sys.executable, "-m", "venv", "--clear", str(PENNYLANE_VENV)], check=True
    )
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "-r",
            str(PENNYLANE_REQUIREMENTS),
        ],
        check=True,
    )
    stamp.write_text(wanted)
    return python


def _vqc_data(qubits: int, train_rows: int) -> dict[str, np.ndarray]:
    """Real data for the VQC at any width: scikit-learn's breast cancer set (malignant = positive),
    standardized and reduced by PCA to ``qubits`` components (fitted on the training part), each
    component's z-score clipped to [-3, 3] and mapped onto [0, 0.5] rad as our VQC maps them at its
    default angle range; a stratified ``train_rows`` of the training part, 150 test rows."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.decomposition import PCA
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    data = load_breast_cancer()
    y = (data.target == 0).astype(int)
    x_train, x_test, y_train, y_test = train_test_split(
        data.data,
        y,
        train_size=train_rows,
        test_size=150,
        stratify=y,
        random_state=SEED,
    )
    scaler = StandardScaler().fit(x_train)
    pca = PCA(n_components=qubits, random_state=SEED).fit(scaler.transform(x_train))
    train_components = pca.transform(scaler.transform(x_train))
    scale = train_components.std(axis=0)

    def angles(x: np.ndarray) -> np.ndarray:
        z = np.clip(pca.transform(scaler.transform(x)) / scale, -3.0, 3.0) / 3.0
        return (z + 1.0) / 2.0 * 0.5

    return {
        "vqc_x_train": angles(x_train),
        "vqc_y_train": y_train,
        "vqc_x_test": angles(x_test),
        "vqc_y_test": y_test,
    }


def _ours_vqc(data: dict[str, np.ndarray], qubits: int, steps: int) -> dict[str, Any]:
    """Our fraud VQC's exact training path (the feature map's states once, then per ADAM step the
    ansatz's unitary, one matmul for every row, the class-weighted cross-entropy, autograd)."""
    import torch
    from qmlstudio_worker.quantum.optimizers import minimize
    from qmlstudio_worker.quantum.statevector import Ansatz, zz_feature_map_states
    from qmlstudio_worker.quantum.variational_classifier import (
        _odd_probability,
        _weighted_cross_entropy,
    )

    ansatz = Ansatz("RealAmplitudes", qubits, 3)
    positive = torch.as_tensor(data["vqc_y_train"].astype(bool))
    states = zz_feature_map_states(
        data["vqc_x_train"], 2
    )  # once per training, outside the steps

    def loss(weights: Any) -> Any:
        return _weighted_cross_entropy(
            _odd_probability(states, ansatz, weights), positive
        )

    marks = [(time.perf_counter(), time.process_time())]

    def on_step(_step: int, _value: float) -> None:
        marks.append((time.perf_counter(), time.process_time()))

    found = minimize(loss, data["vqc_w0"], "ADAM", steps, SEED, on_step)
    # step k's time: from the (k-1)-th report to the k-th; the first step is left out of the mean, as
    # PennyLane's (it builds what the later steps reuse)
    walls = np.diff([m[0] for m in marks])
    cpus = np.diff([m[1] for m in marks])
    wall = float(np.mean(walls[1:] if len(walls) > 1 else walls))
    cpu = float(np.mean(cpus[1:] if len(cpus) > 1 else cpus))
    test_states = zz_feature_map_states(data["vqc_x_test"], 2)
    with torch.no_grad():
        p_test = _odd_probability(test_states, ansatz, torch.as_tensor(found.x)).numpy()
        check_states = zz_feature_map_states(data["check_vqc_x"], 2)
        final = check_states @ ansatz.unitary(
            torch.as_tensor(data["check_vqc_w"])
        ).T.to(check_states.dtype)
        check = (final.abs() ** 2).numpy()
    return {
        "wall_per_step": wall,
        "cpu_per_step": cpu,
        "losses": found.curve,
        "test_accuracy": float(
            np.mean((p_test >= 0.5) == data["vqc_y_test"].astype(bool))
        ),
        "check_probabilities": check,
    }


def _hybrid_data(qubits: int, epochs: int) -> tuple[dict[str, np.ndarray], Any]:
    """The stock sample's windows (the example's features and target, rows 1 to 500, 60 % training),
    the hybrid network's initial parameters (hidden layer 16, RealAmplitudes reps 2, torch seed 123) and
    each epoch's shuffled order."""
    import torch
    from qmlstudio_worker.ml.recurrent import (
        DEFAULT_BATCH_SIZE,
        DEFAULT_WINDOW,
        prepare_windows,
    )
    from qmlstudio_worker.quantum.hybrid import build_network

    frame = pd.read_csv(REPO / "samples" / "apple_google_stock.csv")
    windows = prepare_windows(
        frame,
        ["Close", "High", "Low", "Open"],
        "Close",
        from_index=1,
        to_index=500,
        train_share=0.6,
        window=DEFAULT_WINDOW,
        missing_values="impute_average",
        normalization="[0,1]",
        seed=SEED,
    )
    torch.manual_seed(SEED)
    network = build_network(int(np.prod(windows.x_train.shape[1:])), qubits, 2, 16)
    rng = np.random.default_rng(SEED)
    n = len(windows.y_train)
    data = {
        "hyb_x_train": windows.x_train,
        "hyb_y_train": windows.y_train,
        "hyb_x_test": windows.x_test,
        "hyb_y_test": windows.y_test,
        "hyb_order": np.stack([rng.permutation(n) for _ in range(epochs)]),
        "hyb_batch": np.asarray(DEFAULT_BATCH_SIZE),
        "hyb_reps": np.asarray(2),
        "hyb_lr": np.asarray(0.01),
        "hyb_enc1_w": network.encoder[0].weight.detach().numpy().copy(),
        "hyb_enc1_b": network.encoder[0].bias.detach().numpy().copy(),
        "hyb_enc2_w": network.encoder[2].weight.detach().numpy().copy(),
        "hyb_enc2_b": network.encoder[2].bias.detach().numpy().copy(),
        "hyb_weights": network.weights.detach().numpy().copy(),
        "hyb_head_w": network.head.weight.detach().numpy().copy(),
        "hyb_head_b": network.head.bias.detach().numpy().copy(),
    }
    return data, network


def _ours_hybrid(data: dict[str, np.ndarray], network: Any) -> dict[str, Any]:
    """Our hybrid QNN's epoch as fit_and_predict runs it: torch Adam on the MSE of each mini-batch."""
    import torch
    from qmlstudio_worker.quantum.hybrid import quantum_layer

    x = torch.as_tensor(data["hyb_x_train"])
    y = torch.as_tensor(data["hyb_y_train"])
    optimizer = torch.optim.Adam(network.parameters(), lr=float(data["hyb_lr"]))
    batch = int(data["hyb_batch"])
    walls, cpus = [], []
    for order in data["hyb_order"]:
        wall, cpu = time.perf_counter(), time.process_time()
        for start in range(0, len(order), batch):
            rows = torch.as_tensor(order[start : start + batch])
            optimizer.zero_grad()
            loss = torch.mean((network(x[rows]) - y[rows]) ** 2)
            loss.backward()
            optimizer.step()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    with torch.no_grad():
        predicted = network(torch.as_tensor(data["hyb_x_test"])).numpy()
        check = quantum_layer(
            torch.as_tensor(data["check_hyb_angles"]),
            torch.as_tensor(data["check_hyb_w"]),
            network.ansatz,
        ).numpy()
    return {
        "wall_per_epoch": float(np.mean(walls)),
        "cpu_per_epoch": float(np.mean(cpus)),
        "test_rmse_scaled": float(
            np.sqrt(np.mean((predicted - data["hyb_y_test"]) ** 2))
        ),
        "check_expectations": check,
    }


def _pennylane_mode(name: str, result: dict[str, Any]) -> str:
    """The differentiation method, and whether default.qubit ran one circuit per row (from 12 qubits its
    broadcasting fails: see pennylane_reference.broadcasts)."""
    if name != "default.qubit":
        return "adjoint"
    return "backprop, one circuit per row" if result["vqc"]["per_row"] else "backprop"


def bench_pennylane() -> list[list[str]]:
    """Ours against PennyLane (default.qubit backprop, lightning.qubit adjoint) on the same circuits, data,
    initial parameters, optimizer and steps; PennyLane runs in its own venv as a subprocess."""
    import os
    import subprocess
    import tempfile

    from qmlstudio_worker.quantum.optimizers import ADAM_LEARNING_RATE

    python = pennylane_python()
    sizes, steps, epochs, train_rows = (
        ((4,), 3, 1, 40) if QUICK else ((4, 8, 12), 10, 2, 120)
    )
    rows: list[list[str]] = []
    for qubits in QUBITS or sizes:
        rng = np.random.default_rng(
            SEED + qubits
        )  # a size's parameters do not depend on the others run
        data = _vqc_data(qubits, train_rows)
        data["vqc_qubits"] = np.asarray(qubits)
        data["vqc_w0"] = rng.uniform(-np.pi, np.pi, 4 * qubits)  # RealAmplitudes reps 3
        data["vqc_lr"] = np.asarray(ADAM_LEARNING_RATE)
        data["vqc_steps"] = np.asarray(steps)
        data["check_vqc_x"] = (
            data["vqc_x_test"][:3] * 4.0
        )  # wider angles than training: a stricter check
        data["check_vqc_w"] = rng.uniform(-np.pi, np.pi, 4 * qubits)
        hybrid_data, network = _hybrid_data(qubits, epochs)
        data.update(hybrid_data)
        data["hyb_qubits"] = np.asarray(qubits)
        data["check_hyb_angles"] = rng.uniform(-np.pi, np.pi, (3, qubits))
        data["check_hyb_w"] = rng.uniform(-np.pi, np.pi, 3 * qubits)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "input.npz"
            np.savez(path, **data)
            load = os.getloadavg()
            completed = subprocess.run(
                [
                    str(python),
                    str(PENNYLANE_DIR / "pennylane_reference.py"),
                    str(path),
                    *PENNYLANE_DEVICES,
                ],
                check=True,
                stdout=subprocess.PIPE,  # its JSON; its stderr goes to ours
                text=True,
            )
        theirs = json.loads(completed.stdout.strip().splitlines()[-1])
        if theirs["torch_imported"]:
            raise RuntimeError(
                "the PennyLane reference imported torch; it must run on autograd"
            )
        ours = {
            "vqc": _ours_vqc(data, qubits, steps),
            "hybrid": _ours_hybrid(data, network),
        }
        results = {
            "ours (torch statevector)": ours,
            **{
                f"PennyLane {theirs['pennylane']} {name} ({_pennylane_mode(name, theirs[name])})": theirs[
                    name
                ]
                for name in PENNYLANE_DEVICES
            },
        }
        for label, result in results.items():
            vqc, hybrid = result["vqc"], result["hybrid"]
            p_diff = float(
                np.max(
                    np.abs(
                        np.asarray(vqc["check_probabilities"])
                        - ours["vqc"]["check_probabilities"]
                    )
                )
            )
            z_diff = float(
                np.max(
                    np.abs(
                        np.asarray(hybrid["check_expectations"])
                        - ours["hybrid"]["check_expectations"]
                    )
                )
            )
            loss_diff = float(
                np.max(
                    np.abs(
                        np.asarray(vqc["losses"]) - np.asarray(ours["vqc"]["losses"])
                    )
                )
            )
            equivalent = (
                "equivalent" if max(p_diff, z_diff) <= 1e-6 else "NOT EQUIVALENT"
            )
            rows.append(
                [
                    f"{qubits} qubits VQC step ({len(data['vqc_y_train'])} rows, ADAM), {label}",
                    f"{vqc['wall_per_step'] * 1000:.1f} ms/step (CPU {vqc['cpu_per_step'] * 1000:.1f} ms)",
                    (
                        f"test accuracy {vqc['test_accuracy']:.3f} after {steps} steps; "
                        f"max |dp| vs ours {p_diff:.1e} ({equivalent}); max |dloss| over the steps {loss_diff:.1e}; "
                        f"load {load[0]:.1f}"
                    ),
                ]
            )
            rows.append(
                [
                    f"{qubits} qubits hybrid QNN epoch ({len(data['hyb_y_train'])} windows), {label}",
                    f"{hybrid['wall_per_epoch'] * 1000:.1f} ms/epoch (CPU {hybrid['cpu_per_epoch'] * 1000:.1f} ms)",
                    (
                        f"test RMSE (scaled) {hybrid['test_rmse_scaled']:.4f} after {epochs} epoch(s); "
                        f"max |d<Z>| vs ours {z_diff:.1e} ({equivalent}); load {load[0]:.1f}"
                    ),
                ]
            )
        # this size's rows now: a 12-qubit run takes long
        for row in rows[-2 * len(results) :]:
            print(f"bench_pennylane: {' | '.join(row)}", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    import torch

    torch.set_num_threads(1)  # a shared machine: one thread, comparable runs
    sections = {
        "iris": bench_iris,
        "hybrid": bench_hybrid,
        "portfolio": bench_portfolio,
        "noisy": bench_noisy,
        "pennylane": bench_pennylane,
    }
    global QUICK, QUBITS, PENNYLANE_DEVICES
    arguments = sys.argv[1:]
    QUICK = "--quick" in arguments
    for argument in arguments:
        if argument.startswith("--qubits="):
            QUBITS = tuple(int(q) for q in argument.split("=", 1)[1].split(","))
        if argument.startswith("--pennylane-devices="):
            PENNYLANE_DEVICES = tuple(argument.split("=", 1)[1].split(","))
    arguments = [
        a for a in arguments if not a.startswith(("--qubits=", "--pennylane-devices="))
    ]
    chosen = [a for a in arguments if a != "--quick"] or (
        ["pennylane"] if QUICK else list(sections)
    )
    unknown = [name for name in chosen if name not in sections]
    if unknown:
        raise SystemExit(
            f"unknown section(s) {', '.join(unknown)}; expected {', '.join(sections)}"
        )
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
