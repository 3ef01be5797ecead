"""Noise models (quantum/backends.py): fake IBM device snapshots, circuits transpiled for the device and run
under its noise, wired through the fraud VQC and the portfolio VQE/QAOA handlers; refused where a model
has no noisy path. Small circuits and data: seconds, no network."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import REPO_ROOT, dataset_entry

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.runner import run_job
from qmlstudio_worker.ml.decision_threshold import VALIDATION_SHARE as THRESHOLD_SHARE
from qmlstudio_worker.protocol import EXIT_OK, EXIT_VALIDATION_ERROR, Emitter
from qmlstudio_worker.quantum.backends import NOISE_MODELS, noise_model_name, prepare_noisy

Lines = list[dict[str, Any]]
SAMPLES = REPO_ROOT / "samples"


def test_the_schemas_noise_models_are_the_fake_backends_the_worker_loads() -> None:
    defs = json.loads((REPO_ROOT / "schemas" / "defs.json").read_text(encoding="utf-8"))["$defs"]
    offered = [name for name in defs["noiseModel"]["enum"] if name != "None"]
    assert offered == list(NOISE_MODELS)
    from qmlstudio_worker.quantum.backends import fake_backend

    for name in offered:
        assert fake_backend(name).name == name


def test_noise_model_names_are_checked() -> None:
    assert noise_model_name(None) is None
    assert noise_model_name("None") is None
    assert noise_model_name("fake_kyiv") == "fake_kyiv"
    with pytest.raises(ValueError, match="Unknown noise model 'depolarizing'"):
        noise_model_name("depolarizing")


def _vqc_circuit(n: int = 3) -> tuple[Any, list[Any], Any]:
    from qmlstudio_worker.quantum.statevector import Ansatz, qiskit_feature_map

    ansatz = Ansatz("RealAmplitudes", n, 1)
    feature_map = qiskit_feature_map(n, 2)
    circuit = ansatz.qiskit_circuit()
    return feature_map.compose(circuit), [*feature_map.parameters, *circuit.parameters], ansatz


def test_the_transpiled_compact_circuit_computes_the_model_and_the_device_noise_changes_it() -> None:
    from qiskit_aer import AerSimulator

    from qmlstudio_worker.quantum.statevector import probabilities, zz_feature_map_states

    circuit, parameters, ansatz = _vqc_circuit()
    noisy = prepare_noisy(circuit, parameters, "fake_brisbane", 20_000, seed=3)
    summary = noisy.summary()
    assert summary["device"] == "fake_brisbane"
    assert summary["device_qubits"] == 127
    assert len(summary["physical_qubits"]) == 3
    # ISA: only the device's basis gates remain.
    assert set(summary["transpiled_operations"]) <= {"rz", "sx", "x", "ecr", "measure"}
    assert summary["transpiled_two_qubit_gates"] >= 6

    rng = np.random.default_rng(0)
    x = rng.uniform(0, 0.5, (4, 3))
    w = rng.uniform(-np.pi, np.pi, ansatz.num_parameters)
    states = zz_feature_map_states(x, 2)
    exact = probabilities(states @ ansatz.unitary(torch.as_tensor(w)).T.to(states.dtype)).numpy()
    values = np.hstack([x, np.tile(w, (4, 1))])

    with_noise = noisy.probabilities(values)
    assert with_noise.shape == (4, 8)
    np.testing.assert_allclose(with_noise.sum(axis=1), 1.0)
    ideal_simulator, noisy.simulator = noisy.simulator, AerSimulator()
    ideal = noisy.probabilities(values)  # same transpiled circuit and binding, no noise
    noisy.simulator = ideal_simulator
    assert np.abs(ideal - exact).max() < 0.015  # 20 000 shots
    assert np.abs(with_noise - exact).max() > 0.02  # the device's noise is really simulated
    assert noisy.summary()["circuits_run"] == 8  # two calls of four rows


def test_the_portfolio_circuits_bind_their_weights_in_the_solvers_order() -> None:
    from qiskit.circuit.library import qaoa_ansatz
    from qiskit_aer import AerSimulator

    from qmlstudio_worker.problems.portfolio_optimization.quantum_solver import energies, ising_operator
    from qmlstudio_worker.problems.portfolio_optimization.selection import PortfolioProblem
    from qmlstudio_worker.quantum.statevector import probabilities
    from qmlstudio_worker.quantum.variational import qaoa_state

    rng = np.random.default_rng(1)
    returns = rng.normal(0.001, 0.02, (60, 3))
    problem = PortfolioProblem(
        assets=("A", "B", "C"),
        mu=returns.mean(axis=0),
        sigma=np.cov(returns, rowvar=False),
        risk_factor=0.5,
        budget=1,
    )
    energy, _, _ = energies(problem)
    circuit = qaoa_ansatz(ising_operator(problem), reps=2)
    noisy = prepare_noisy(circuit, list(circuit.parameters), "fake_torino", 40_000, seed=5)
    noisy.simulator = AerSimulator()
    weights = np.array([0.3, 0.6, 0.8, 0.2])  # betas, then gammas
    expected = probabilities(qaoa_state(torch.as_tensor(energy), weights[:2], weights[2:], 3))[0].numpy()
    assert np.abs(noisy.probabilities(weights[None, :])[0] - expected).max() < 0.012


# --- through the handlers ------------------------------------------------------------------------


def _fixture_body(problem: str, name: str, **changes: Any) -> dict[str, Any]:
    path = REPO_ROOT / "src" / "generated" / "fixtures" / f"{problem}.job-requests.json"
    (request,) = [r for r in json.loads(path.read_text(encoding="utf-8"))["requests"] if r["name"] == name]
    return {**request["body"], **changes}


def _run(problem: str, body: dict[str, Any], dataset: Path, parse: Callable[[str], Lines], **ext: Any) -> Any:
    extension: dict[str, Any] = {
        "dataset": dataset_entry(dataset),
        "seed": 42,
        **ext,
    }
    stream = io.StringIO()
    code = run_job(
        json.dumps({"kind": problem, "job_id": "7", "params": body, "extension": extension}), Emitter(stream)
    )
    return code, parse(stream.getvalue())


TINY_FRAUD_ROWS = 80


@pytest.fixture(scope="module")
def tiny_fraud(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """TINY_FRAUD_ROWS rows (15 % fraud): every training row of every evaluation is a noisy circuit."""
    frame = pd.read_csv(SAMPLES / "credit_card_fraud_synthetic.csv")
    small = pd.concat(
        [frame[frame["Class"] == 1].head(12), frame[frame["Class"] == 0].head(TINY_FRAUD_ROWS - 12)]
    ).sort_index()
    path = tmp_path_factory.mktemp("noisy") / "fraud_tiny.csv"
    small.to_csv(path, index=False)
    return path


def test_a_noisy_fraud_vqc_trains_and_scores_on_the_noisy_circuits(
    tiny_fraud: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    body = _fixture_body(
        "fraud-detection", "example with model_type Quantum", optimizer_alg_maxiter=4, circuit_repetition=1
    )
    body["quantum_shots"] = 256
    code, lines = _run(
        "fraud-detection", body, tiny_fraud, parse_protocol_lines, quantum_noise_model="fake_kyiv"
    )
    assert code == EXIT_OK, lines[-1]
    config = lines[-1]["data"]["training_data"]["config"]
    assert config["noise_model"] == "fake_kyiv"
    assert config["shots"] == 256
    assert "transpiled for the device" in config["simulation"]
    backend = config["backend_run"]
    assert backend["device"] == "fake_kyiv"
    assert backend["shots"] == 256
    test_rows = lines[-1]["data"]["training_data"]["test_rows"]
    train_rows = TINY_FRAUD_ROWS - test_rows
    # The fit leaves out the validation quarter of the training rows (it chooses the decision threshold).
    fit_rows = lines[-1]["data"]["training_data"]["train_rows_used"]
    assert fit_rows == train_rows - math.ceil(train_rows * THRESHOLD_SHARE)
    evaluations = lines[-1]["data"]["training_data"]["config"]["maxiter"]
    assert backend["circuits_run"] == evaluations * fit_rows + test_rows  # every probability ran noisily
    stages = [line["stage"] for line in lines if line["type"] == "progress"]
    assert "transpiling for fake_kyiv" in stages
    # The status timeline's phases, in order: transpiling, circuits, then metrics and charts.
    phases = [line["phase"] for line in lines if line["type"] == "progress" and "phase" in line]
    assert [p for i, p in enumerate(phases) if i == 0 or phases[i - 1] != p] == [
        "preparing",
        "executing",
        "post-processing",
    ]


def test_a_progress_phase_outside_the_three_is_refused() -> None:
    with pytest.raises(ValueError, match="phase must be one of"):
        Emitter(io.StringIO()).progress(5, "x", "queued")  # type: ignore[arg-type]


def test_adam_trains_under_noise_and_unknown_noise_models_are_refused(
    tiny_fraud: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    body = _fixture_body(
        "fraud-detection", "example with model_type Quantum", optimizer_alg="ADAM", optimizer_alg_maxiter=3
    )
    code, lines = _run(
        "fraud-detection", body, tiny_fraud, parse_protocol_lines, quantum_noise_model="fake_kyiv"
    )
    assert code == EXIT_OK, lines[-1]
    config = lines[-1]["data"]["training_data"]["config"]
    assert config["simulation"].startswith("ADAM on the gradient of the exact noisy channel")
    code, lines = _run(
        "fraud-detection", body, tiny_fraud, parse_protocol_lines, quantum_noise_model="fake_x"
    )
    assert code == EXIT_VALIDATION_ERROR
    assert lines[-1]["field"] == "/extension/quantum_noise_model"


def test_a_noisy_portfolio_qaoa_runs_its_circuits_on_the_device_noise(
    parse_protocol_lines: Callable[[str], Lines],
) -> None:
    body = _fixture_body(
        "portfolio-optimization",
        "example with model_type Classical",
        model="QAOA",
        use_quantum_simulator=True,
        quantum_device_backend="aer_simulator_statevector",
        optimizer_alg="COBYLA",
        optimizer_alg_maxiter=8,
        circuit_repetition=1,
    )
    code, lines = _run(
        "portfolio-optimization",
        body,
        SAMPLES / "five_companies_stock.csv",
        parse_protocol_lines,
        quantum_noise_model="fake_sherbrooke",
    )
    assert code == EXIT_OK, lines[-1]
    text = json.dumps(lines[-1]["data"])
    assert '"noise_model": "fake_sherbrooke"' in text
    assert '"device": "fake_sherbrooke"' in text
    assert '"circuits_run": 9' in text  # 8 evaluations and the final measurement


def test_models_without_a_noisy_path_refuse_a_noise_model_or_a_device_rather_than_ignoring_it() -> None:
    from qmlstudio_worker.jobs.support import JobInputs, require_ideal_simulator

    inputs = JobInputs.__new__(JobInputs)
    inputs.quantum_noise_model = "fake_torino"
    with pytest.raises(JobValidationError) as refused:
        require_ideal_simulator({"use_quantum_simulator": True}, inputs, "hybrid quantum forecaster")
    assert refused.value.field == "/extension/quantum_noise_model"
    assert "not available for the hybrid quantum forecaster" in refused.value.message
    inputs.quantum_noise_model = None
    with pytest.raises(JobValidationError) as device:
        require_ideal_simulator({"use_quantum_simulator": False}, inputs, "hybrid quantum forecaster")
    assert device.value.field == "/params/use_quantum_simulator"
    require_ideal_simulator({"use_quantum_simulator": True}, inputs, "hybrid quantum forecaster")


def test_the_method_is_the_density_matrix_up_to_the_measured_crossover_and_trajectories_above() -> None:
    from qmlstudio_worker.quantum.backends import MAX_DENSITY_MATRIX_QUBITS, simulation_method

    assert simulation_method(4) == "density_matrix"
    assert simulation_method(MAX_DENSITY_MATRIX_QUBITS) == "density_matrix"
    assert simulation_method(MAX_DENSITY_MATRIX_QUBITS + 1) == "statevector"
    assert simulation_method(15) == "statevector"  # the vehicle-routing sample: 17 GB as a density matrix


def test_trajectories_and_the_density_matrix_give_the_same_noisy_distribution_within_shot_noise() -> None:
    from qiskit.circuit.library import real_amplitudes
    from qiskit.quantum_info import Statevector

    circuit = real_amplitudes(4, reps=2)
    values = np.random.default_rng(5).uniform(-np.pi, np.pi, (2, circuit.num_parameters))
    shots = 3000
    density = prepare_noisy(circuit, list(circuit.parameters), "fake_kyiv", shots, 7, method="density_matrix")
    # one noise realisation per shot, as Aer's trajectories define them
    paths = prepare_noisy(
        circuit, list(circuit.parameters), "fake_kyiv", shots, 7, method="statevector", trajectories=shots
    )
    assert density.summary()["simulation_method"] == "density_matrix"
    assert paths.summary()["simulation_method"] == "statevector"
    assert paths.summary()["trajectories"] == shots
    assert "trajectories" in paths.describe()
    exact = density.distributions(values)  # the exact noisy distribution, readout error included
    sampled = paths.probabilities(values)
    np.testing.assert_allclose(sampled.sum(axis=1), 1.0)
    # fixed seeds: deterministic; 5 standard deviations of (trajectory + shot) sampling per outcome
    sigma = np.sqrt(2 * exact * (1 - exact) / shots) + 1e-3
    assert np.all(np.abs(sampled - exact) <= 5 * sigma)
    ideal = np.stack([Statevector(circuit.assign_parameters(v)).probabilities() for v in values])
    assert np.abs(exact - ideal).sum(axis=1).max() > 0.05  # and the noise is really there


def test_the_noise_of_the_circuits_qubits_is_the_devices_noise_on_them() -> None:
    from qiskit_aer.noise.device.models import basic_device_gate_errors
    from qiskit_ibm_runtime.fake_provider import FakeMontrealV2

    from qmlstudio_worker.quantum.backends import _TargetOn

    # A 27-qubit snapshot: the errors of every gate of a 127-qubit device took ~20 s here, and restricting a
    # target to some of its qubits is the same code for any device (the noisy tests above run fake_kyiv).
    backend = FakeMontrealV2()
    physical = [3, 4, 5, 15]
    restricted = basic_device_gate_errors(target=_TargetOn(backend.target, physical))
    full = [e for e in basic_device_gate_errors(target=backend.target) if set(e[1]) <= set(physical)]
    assert len(restricted) == len(full) > 0
    for (gate, qargs, error), (gate_full, qargs_full, error_full) in zip(restricted, full, strict=True):
        assert (gate, qargs) == (gate_full, qargs_full)
        assert error == error_full
