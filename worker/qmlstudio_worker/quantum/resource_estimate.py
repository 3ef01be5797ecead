"""Resource estimate of a quantum job before it runs (issue #12, "Resource estimate before running").

From a job body (the same one execute-job sends) :func:`estimate` builds the Qiskit circuit the handler's
model would run, transpiles it for the chosen simulator (``AerSimulator``, optimization level 1, seeded)
and reports its qubits, depth and two-qubit-gate count; the circuit evaluations per optimizer iteration
(or per epoch for the hybrid forecasters), the iterations, the total shots a shot-based backend would
take, and a run time estimated from one timing of this worker's own simulation of that circuit on this
machine (so it reflects the exact simulator the job uses, not a device). Evaluation counts per
iteration: COBYLA 1, SPSA 2, ADAM 2 P + 1 on a sampler (parameter shift over P parameters; our exact
simulator takes one autograd pass instead, which the time estimate uses). ``rows`` (the dataset's row
count, which the body does not carry) scales the per-row models; without it they are reported per row.

Off the ideal simulator the circuit is transpiled for the chosen backend's target instead, as the run does
(:mod:`.backends`, :mod:`.devices`: measured, optimization level 1, seeded with the run's default seed): a
noise model's device snapshot, or a real device's own snapshot from the fake provider (offline, so no token
or network is needed; the live device may be calibrated differently). Under a noise model the run time is
timed on this machine's noisy simulation of that circuit (Aer density matrix, the run's shots); a device's
run time depends on the provider's queue and is not estimated.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from qmlstudio_worker.quantum import vehicle_routing as routing
from qmlstudio_worker.quantum.statevector import Ansatz

EVALUATIONS_PER_ITERATION = {"COBYLA": 1, "SPSA": 2}
#: The seed a run transpiles with unless told otherwise (the server's default job seed).
RUN_SEED = 42
#: Rows of one timed noisy simulation (its time per circuit scales the estimate).
NOISY_TIMING_ROWS = 8
#: The models with a noisy and a device path (the others' jobs refuse a device, and a noise model too
#: unless listed in TESTED_UNDER_NOISE: ml/job_support.require_ideal_simulator in their handlers).
NOISY_PATH_MODELS = {
    ("fraud-detection", "Variational Quantum Classifier"),
    ("fraud-detection", "Quantum Support Vector Classifier"),
    ("portfolio-optimization", "VQE"),
    ("portfolio-optimization", "QAOA"),
    ("vehicle-routing", "VQE"),
    ("vehicle-routing", "QAOA"),
}
#: The hybrid forecasters train exactly and run only their test predictions under a noise model (hybrid.py).
TESTED_UNDER_NOISE = {
    ("stock-price-prediction", "Hybrid quantum neural network"),
    ("demand-forecasting", "Hybrid quantum neural network"),
}
FRAUD_TRAIN_SHARE = 0.7  # the fraud test_ratio options are 0.3 to 0.8; the body's value is used when present
TIMING_REPEATS = 3


def _timed(action: Callable[[], Any]) -> float:
    """The fastest of a few runs of ``action`` (seconds): the machine's cost without warm-up noise."""
    action()
    best = math.inf
    for _ in range(TIMING_REPEATS):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def _compiled_summary(circuit: Any, compiled: Any, transpiled_for: str) -> dict[str, Any]:
    """The summary both transpile targets report: ``circuit``'s own size, ``compiled``'s depth and gates."""
    return {
        "qubits": int(circuit.num_qubits),
        "parameters": int(circuit.num_parameters),
        "depth": int(compiled.depth()),
        "two_qubit_gates": int(sum(1 for inst in compiled.data if inst.operation.num_qubits == 2)),
        "gate_counts": {str(k): int(v) for k, v in compiled.count_ops().items()},
        "transpiled_for": transpiled_for,
    }


def transpiled_summary(circuit: Any, backend_name: str | None) -> dict[str, Any]:
    """Qubits, depth and two-qubit gates of ``circuit`` after transpiling for the Aer simulator."""
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    method = "automatic" if backend_name == "qasm_simulator" else "statevector"
    # Generic parameter values: zeros would let the transpiler cancel gates (U U^dagger, RY(0)).
    values = np.random.default_rng(0).uniform(0.1, 1.0, circuit.num_parameters)
    bound = circuit.assign_parameters(values) if circuit.num_parameters else circuit
    compiled = transpile(bound, AerSimulator(method=method), optimization_level=1, seed_transpiler=0)
    return _compiled_summary(circuit, compiled, f"AerSimulator(method={method!r}), optimization level 1")


def target_summary(circuit: Any, backend: Any, what: str) -> dict[str, Any]:
    """Qubits, depth and two-qubit gates of ``circuit`` measured and transpiled for a device target (ISA), as
    :func:`.backends.prepare_noisy` and :func:`.devices.prepare_device` transpile it for a run."""
    from qiskit.transpiler import generate_preset_pass_manager

    from qmlstudio_worker.quantum.devices import OPTIMIZATION_LEVEL

    measured = circuit.copy()
    measured.measure_all()
    manager = generate_preset_pass_manager(
        optimization_level=OPTIMIZATION_LEVEL, backend=backend, seed_transpiler=RUN_SEED
    )
    compiled = manager.run(measured)
    return _compiled_summary(
        circuit, compiled, f"{backend.name} ({what}), optimization level {OPTIMIZATION_LEVEL}"
    )


def _noisy_seconds_per_circuit(circuit: Any, noise_model: str, shots: int) -> float:
    """Seconds per circuit of this machine's noisy simulation of ``circuit`` (what a noisy run repeats)."""
    from qmlstudio_worker.quantum.backends import prepare_noisy

    runner = prepare_noisy(circuit, list(circuit.parameters), noise_model, shots, RUN_SEED)
    values = np.random.default_rng(0).uniform(0.1, 1.0, (NOISY_TIMING_ROWS, circuit.num_parameters))
    return _timed(lambda: runner.probabilities(values)) / NOISY_TIMING_ROWS


def _target(params: Mapping[str, Any], noise_model: str | None) -> tuple[str, str | None, Any | None]:
    """Where the body's circuits run: ("ideal", None, None), ("noise_model", name, snapshot) or
    ("device", name, snapshot of that device)."""
    from qmlstudio_worker.quantum.backends import fake_backend, noise_model_name

    if params.get("use_quantum_simulator") is False:
        from qmlstudio_worker.quantum.devices import device_snapshot

        device = str(params.get("quantum_device_backend") or "")
        snapshot = device_snapshot(device) if device else None
        if snapshot is None:
            raise ValueError(f"the device {device or '(none)'} has no offline snapshot to transpile for")
        return "device", device, snapshot
    name = noise_model_name(noise_model)
    return ("noise_model", name, fake_backend(name)) if name is not None else ("ideal", None, None)


def _per_iteration(optimizer: str, parameters: int) -> int:
    return EVALUATIONS_PER_ITERATION.get(optimizer, 2 * parameters + 1)


def _fraud(params: Mapping[str, Any], rows: int | None, measured: bool = False) -> dict[str, Any]:
    import torch

    from qmlstudio_worker.quantum import qsvc, vqc
    from qmlstudio_worker.quantum.statevector import qiskit_feature_map, zz_feature_map_states

    qubits = vqc.DEFAULT_QUBITS
    reps = int(params.get("circuit_repetition") or 2)
    share = 1.0 - float(params.get("test_ratio") or 1.0 - FRAUD_TRAIN_SHARE)
    train = None if rows is None else max(1, round(rows * share))
    if params.get("model") == qsvc.MODEL:
        from qiskit.circuit import ParameterVector

        feature_map = qiskit_feature_map(qubits, reps)
        other = feature_map.assign_parameters(ParameterVector("y", feature_map.num_parameters))
        circuit = feature_map.compose(other.inverse())  # compute-uncompute: U(y)^dagger U(x)
        angles = np.random.default_rng(0).uniform(0, 0.5, (200, qubits))
        per_entry = _timed(lambda: qsvc.fidelity_kernel(angles, angles, reps, symmetric=True)) / 200**2
        test = None if rows is None or train is None else rows - train
        # a noise model or a device measures one circuit per entry, on capped rows (qsvc's caps)
        evaluations = None if train is None else qsvc.kernel_evaluations(train, test or 0, measured)[2]
        return {
            "model": qsvc.MODEL,
            "circuit": circuit,
            "evaluations_per_iteration": evaluations,
            "iterations": 1,
            "evaluation_unit": "kernel entries (training pairs, then test x training rows)",
            "seconds": None if evaluations is None else per_entry * evaluations,
        }
    pqc = str(params.get("pqc") or "RealAmplitudes")
    optimizer = str(params.get("optimizer_alg") or "COBYLA")
    iterations = int(params.get("optimizer_alg_maxiter") or 100)
    ansatz = Ansatz(pqc, qubits, int(params.get("circuit_repetition") or 2))
    circuit = qiskit_feature_map(qubits, vqc.FEATURE_MAP_REPS).compose(ansatz.qiskit_circuit())
    used = min(train, vqc.MAX_TRAIN_ROWS) if train is not None else None
    # One evaluation is timed at the real row count: its cost is the PQC's unitary plus one matmul.
    batch = used if used is not None else 1
    states = zz_feature_map_states(np.random.default_rng(0).uniform(0, 0.5, (batch, qubits)))
    weights = torch.zeros(ansatz.num_parameters, dtype=torch.float64)
    per_evaluation = _timed(lambda: vqc._odd_probability(states, ansatz, weights))
    per_iteration = _per_iteration(optimizer, ansatz.num_parameters)
    return {
        "model": vqc.MODEL,
        "circuit": circuit,
        "evaluations_per_iteration": None if used is None else used * per_iteration,
        "iterations": iterations,
        "evaluation_unit": "circuits (one per training row per evaluation)",
        # The simulator runs one evaluation per COBYLA/ADAM step, two per SPSA step.
        "seconds": None if used is None else per_evaluation * iterations * (2 if optimizer == "SPSA" else 1),
    }


def _forecaster(params: Mapping[str, Any], rows: int | None) -> dict[str, Any]:
    import torch

    from qmlstudio_worker.quantum import hybrid
    from qmlstudio_worker.quantum.statevector import Ansatz as _Ansatz

    qubits = int(params.get("qubits") or 4)
    epochs = int(params.get("epochs") or 10)
    ansatz = _Ansatz("RealAmplitudes", qubits, hybrid.DEFAULT_REPS)
    batch = 64
    angles = torch.rand(batch, qubits, dtype=torch.float64)
    weights = torch.zeros(ansatz.num_parameters, dtype=torch.float64, requires_grad=True)

    def step() -> None:
        hybrid.quantum_layer(angles, weights, ansatz).sum().backward()

    per_sample = _timed(step) / batch
    samples = None if rows is None else max(1, round(rows * 0.8))
    return {
        "model": hybrid.MODEL_NAME,
        "circuit": hybrid.qiskit_circuit(qubits, hybrid.DEFAULT_REPS),
        "evaluations_per_iteration": None if samples is None else samples * (2 * ansatz.num_parameters + 1),
        "iterations": epochs,
        "evaluation_unit": "circuits per epoch (one per training window, parameter shift for gradients)",
        "seconds": None if samples is None else per_sample * samples * epochs,
    }


def _optimizer_problem(kind: str, params: Mapping[str, Any], rows: int | None) -> dict[str, Any]:
    import itertools

    import torch
    from qiskit.circuit.library import qaoa_ansatz
    from qiskit.quantum_info import SparsePauliOp

    from qmlstudio_worker.quantum.portfolio_vqe import qaoa_state
    from qmlstudio_worker.quantum.statevector import zero_state

    if kind == "portfolio-optimization":
        qubits = len(params.get("stocks_names") or [])
    else:
        from qmlstudio_worker.quantum.vehicle_routing import qubit_count

        if rows is None:
            raise ValueError("the vehicle-routing estimate needs the dataset's row count (rows)")
        qubits = qubit_count(rows)
    if qubits < 1:
        raise ValueError("the body selects no assets")
    model = str(params.get("model"))
    reps = int(params.get("circuit_repetition") or 2)
    optimizer = str(params.get("optimizer_alg") or "COBYLA")
    iterations = int(params.get("optimizer_alg_maxiter") or 100)
    simulable = qubits <= 16
    if model == "QAOA" and kind == "vehicle-routing" and simulable:
        circuit = routing.qaoa_circuit_for(int(rows or 0), reps)  # the QUBO's own terms, as the run builds it
    if model == "QAOA":
        terms = [("Z", [q], 1.0) for q in range(qubits)] + [
            ("ZZ", [a, b], 1.0) for a, b in itertools.combinations(range(qubits), 2)
        ]
        if kind != "vehicle-routing" or not simulable:
            circuit = qaoa_ansatz(SparsePauliOp.from_sparse_list(terms, qubits), reps=reps)
        energy = torch.rand(2**qubits, dtype=torch.float64) if simulable else None
        params_count = 2 * reps

        def evaluate() -> None:
            qaoa_state(energy, [0.1] * reps, [0.2] * reps, qubits)

    else:
        ansatz = Ansatz("RealAmplitudes", qubits, reps)
        circuit = ansatz.qiskit_circuit()
        params_count = ansatz.num_parameters
        weights = torch.zeros(params_count, dtype=torch.float64)

        def evaluate() -> None:
            ansatz.apply(zero_state(qubits, 1, ansatz.complex_amplitudes), weights)

    per_iteration = _per_iteration(optimizer, params_count)
    seconds = _timed(evaluate) * iterations * (2 if optimizer == "SPSA" else 1) if simulable else None
    return {
        "model": model,
        "circuit": circuit,
        "evaluations_per_iteration": per_iteration,
        "iterations": iterations,
        "evaluation_unit": "circuits (one per energy evaluation)",
        "seconds": seconds,
        "note": None
        if simulable
        else f"{qubits} qubits: above the simulator's limit of 16, the job is refused",
    }


def estimate(
    kind: str, params: Mapping[str, Any], rows: int | None = None, noise_model: str | None = None
) -> dict[str, Any]:
    """The resource estimate of a job body (and the extension's ``noise_model``); see the module docstring.
    Raises ValueError for a body that has no quantum circuit (a Classical model), a problem without a
    quantum model, an unknown noise model or a device without a snapshot."""
    from qmlstudio_worker.ml.job_support import quantum_shots

    model = str(params.get("model"))
    if model in ("Classical", "LSTM", "GRU", "RNN") or (kind == "fraud-detection" and "Quantum" not in model):
        raise ValueError(f"the {model} model runs no quantum circuit")
    if kind == "fraud-detection":
        measured = params.get("use_quantum_simulator") is False or noise_model not in (None, "None")
        found = _fraud(params, rows, measured)
    elif kind in ("stock-price-prediction", "demand-forecasting"):
        found = _forecaster(params, rows)
    elif kind in ("portfolio-optimization", "vehicle-routing"):
        found = _optimizer_problem(kind, params, rows)
    else:
        raise ValueError(f"problem {kind!r} has no quantum model to estimate")
    where, name, snapshot = _target(params, noise_model)
    backend = params.get("quantum_device_backend")
    shots = quantum_shots(params, name if where == "noise_model" else None, device_ok=True)
    per_iteration = found["evaluations_per_iteration"]
    evaluations = None if per_iteration is None else per_iteration * found["iterations"]
    seconds = found["seconds"]
    note = found.get("note")
    if where == "ideal":
        summary = transpiled_summary(found["circuit"], str(backend) if backend else None)
        simulation = "exact statevector" if shots is None else f"{shots} shots per circuit"
    else:
        assert name is not None
        assert shots is not None  # a noise model or a device always samples
        snapshot_of = (
            "the noise model's device snapshot" if where == "noise_model" else "its offline snapshot"
        )
        summary = target_summary(found["circuit"], snapshot, snapshot_of)
        simulation = f"{shots} shots per circuit on {name}"
        seconds = None
        tested_only = (kind, found["model"]) in TESTED_UNDER_NOISE
        if where == "noise_model" and tested_only:
            test_windows = None if rows is None else max(1, rows - round(rows * 0.8))
            per_circuit = _noisy_seconds_per_circuit(found["circuit"], name, shots)
            if found["seconds"] is not None and test_windows is not None:
                seconds = found["seconds"] + per_circuit * test_windows
            note = f"Trained on the exact simulator; the test predictions run under the {name} noise."
        elif (kind, found["model"]) not in NOISY_PATH_MODELS:
            note = f"The {found['model']} runs on the ideal simulator only: a job on {name} is refused."
        elif where == "device":
            note = "On a real device the run time depends on the provider's queue: it is not estimated."
        elif kind == "vehicle-routing" and found["circuit"].num_qubits > routing.MAX_NOISY_QUBITS:
            note = routing.noisy_refusal(found["circuit"].num_qubits, name, None, evaluations or 0)
        else:
            per_circuit = _noisy_seconds_per_circuit(found["circuit"], name, shots)
            seconds = None if evaluations is None else per_circuit * evaluations
            simulation = f"{shots} shots per circuit under the {name} noise (Aer density matrix)"
    return {
        "problem": kind,
        "model": found["model"],
        "backend": backend,
        "noise_model": name if where == "noise_model" else None,
        "device": name if where == "device" else None,
        **{k: summary[k] for k in ("qubits", "parameters", "depth", "two_qubit_gates", "gate_counts")},
        "transpiled_for": summary["transpiled_for"],
        "evaluations_per_iteration": per_iteration,
        "evaluation_unit": found["evaluation_unit"],
        "iterations": found["iterations"],
        "circuit_evaluations": evaluations,
        "shots_per_evaluation": shots,
        "total_shots": None if shots is None or evaluations is None else shots * evaluations,
        "simulation": simulation,
        "estimated_seconds": None if seconds is None else round(float(seconds), 3),
        "rows": rows,
        "note": note,
    }
