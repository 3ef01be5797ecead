"""Vehicle routing off the ideal simulator: QAOA's circuit is the QUBO's own (equal to the torch state), the
smallest instance (a depot and 2 stops, 6 qubits) runs under the fake_kyiv noise and on ibm_perth (7 qubits:
the device path is the same on any device, and a 127-qubit one costs seconds per local provider job) in the
runtime's local testing mode, repeats with its seed; the shipped sample (14 qubits) runs under noise on
statevector trajectories, and a size above the limit is refused with its measured cost."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import REPO_ROOT
from test_handlers_financial import refusal, result_of, run
from test_quantum_vehicle_routing import COORDINATES, _body, stops_csv  # noqa: F401 (fixture)

from qmlstudio_worker.problems.vehicle_routing import routing as vr
from qmlstudio_worker.quantum import devices
from qmlstudio_worker.quantum.statevector import probabilities
from qmlstudio_worker.quantum.variational import qaoa_state

Lines = list[dict[str, Any]]


def _three_stops() -> vr.RoutingInstance:
    return vr.RoutingInstance(
        names=["depot", "a", "b"],
        coordinates=np.asarray(COORDINATES[:3]),
        demand=np.asarray([0.0, 30.0, 40.0]),
        depot=0,
        vehicles=1,
        capacity=100,
    )


def test_the_qaoa_circuit_is_the_qubo_the_simulation_computes() -> None:
    from qiskit.circuit.library import qaoa_ansatz
    from qiskit.quantum_info import Statevector

    instance = vr.RoutingInstance(
        names=list("depqr"[:4]),
        coordinates=np.asarray(COORDINATES[:4]),
        demand=np.zeros(4),
        depot=0,
        vehicles=2,
        capacity=1,
    )
    qubo, energy = vr.build_qubo(instance)
    circuit = qaoa_ansatz(vr.ising_operator(energy, qubo.qubits), reps=2)
    weights = np.asarray([0.3, 0.5, 0.7, 0.2])  # betas, then gammas (the circuit's parameter order)
    bound = circuit.assign_parameters(dict(zip(circuit.parameters, weights, strict=True)))
    expected = probabilities(
        qaoa_state(torch.as_tensor(energy), torch.as_tensor(weights[:2]), torch.as_tensor(weights[2:]), 14)
    )[0].numpy()
    assert np.abs(Statevector(bound).probabilities() - expected).max() < 1e-10


def test_qaoa_under_fake_kyiv_reports_routes_against_the_optimum_and_repeats() -> None:
    solved = vr.solve_quantum(_three_stops(), "QAOA", maxiter=8, reps=1, seed=7, noise_model="fake_kyiv")
    assert solved["qubits"] == 6
    assert solved["noise_model"] == "fake_kyiv"
    assert solved["shots"] == 1024
    assert solved["backend_run"]["circuits_run"] == 9  # 8 COBYLA evaluations and the final measurement
    assert "fake_kyiv" in solved["simulation"]
    if solved["found_routes"]:
        assert solved["gap_km"] == pytest.approx(solved["total_distance_km"] - solved["exact_distance_km"])
        assert solved["gap_km"] >= -1e-9
    else:
        assert solved["selection_rule"].startswith("none of 1024 measurements")
    assert 0 <= solved["optimum_probability"] <= solved["feasible_probability"] <= 1
    assert len(solved["convergence"]) == 8
    again = vr.solve_quantum(_three_stops(), "QAOA", maxiter=8, reps=1, seed=7, noise_model="fake_kyiv")
    assert again["convergence"] == solved["convergence"]
    assert again["optimum_probability"] == solved["optimum_probability"]


def test_adam_under_noise_follows_the_noisy_channel_and_is_refused_on_a_device() -> None:
    from qiskit_ibm_runtime.fake_provider import FakeKyiv

    from qmlstudio_worker.quantum.optimizers import ADAM_ON_A_DEVICE

    solved = vr.solve_quantum(
        _three_stops(), "QAOA", optimizer="ADAM", maxiter=6, reps=1, noise_model="fake_kyiv"
    )
    curve = solved["convergence"]
    assert len(curve) == 6
    assert curve[-1] < curve[0]  # the noisy energy falls
    assert solved["simulation"].startswith("ADAM on the gradient of the exact noisy channel")
    assert solved["noisy_training"]["rows_simulated"] == 6
    assert solved["backend_run"]["circuits_run"] == 1  # only the final circuit is measured on Aer
    device = devices.DeviceTarget("ibm_kyiv", local_backend=FakeKyiv())
    with pytest.raises(ValueError, match="for a real device") as refused:
        vr.solve_quantum(_three_stops(), "VQE", optimizer="ADAM", maxiter=2, device=device)
    assert str(refused.value) == ADAM_ON_A_DEVICE


@pytest.fixture
def three_stops_csv(tmp_path: Path) -> Path:
    path = tmp_path / "three.csv"
    pd.DataFrame(
        {
            "id": [1, 2, 3],
            "latitude": [c[0] for c in COORDINATES[:3]],
            "longitude": [c[1] for c in COORDINATES[:3]],
            "demand": [0, 30, 40],
        }
    ).to_csv(path, index=False)
    return path


def test_the_device_path_runs_in_local_testing_mode(
    three_stops_csv: Path, monkeypatch: pytest.MonkeyPatch, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    monkeypatch.setenv(devices.LOCAL_TESTING_ENV, "1")
    body = _body(
        "example with model_type Quantum",
        num_vehicles=1,
        optimizer_alg_maxiter=2,  # each evaluation is a local provider job (several seconds)
        circuit_repetition=1,
        use_quantum_simulator=False,
        quantum_device_backend="ibm_perth",
    )
    code, lines = run("vehicle-routing", body, three_stops_csv, None, parse_protocol_lines)
    data = result_of(code, lines)
    run_summary = data["selection"]["backend_run"]
    assert run_summary["local_testing_mode"] is True
    assert len(run_summary["provider_job_ids"]) == 3  # 2 evaluations and the final measurement
    assert data["selection"]["device"] == "ibm_perth"
    assert data["metrics"]["optimum_probability"] <= data["metrics"]["feasible_probability"]
    assert any(line["type"] == "log" and "submitted to" in line["message"] for line in lines)


def test_the_shipped_sample_runs_under_noise_on_statevector_trajectories(
    parse_protocol_lines: Callable[[str], Lines],
) -> None:
    # the sample's 4 rows (depot + 3 stops): 14 qubits, once refused as a 4.3 GB density matrix. 16 shots:
    # a run takes at most one noise realisation per shot (16 of the 64 TRAJECTORIES), the CPU of a 14-qubit
    # trajectory times 3 evaluations
    body = _body(
        "example with model_type Quantum",
        model="VQE",
        optimizer_alg_maxiter=2,
        circuit_repetition=1,
        quantum_shots=16,
    )
    sample = REPO_ROOT / "samples" / "delivery_locations.csv"
    code, lines = run(
        "vehicle-routing", body, sample, None, parse_protocol_lines, quantum_noise_model="fake_kyiv"
    )
    data = result_of(code, lines)
    selection = data["selection"]
    assert selection["qubits"] == 14
    assert selection["noise_model"] == "fake_kyiv"
    run_summary = selection["backend_run"]
    assert run_summary["simulation_method"] == "statevector"
    assert run_summary["shots"] == 16
    assert run_summary["trajectories"] == 16  # min(shots, TRAJECTORIES)
    assert run_summary["circuits_run"] == 3  # 2 COBYLA evaluations and the final measurement
    assert "trajectories" in selection["simulation"]
    assert 0 <= data["metrics"]["optimum_probability"] <= data["metrics"]["feasible_probability"] <= 1


def test_above_the_limit_the_refusal_gives_the_measured_cost() -> None:
    assert vr.noisy_refusal(14, "fake_kyiv", None, 100) is None
    assert vr.noisy_refusal(20, None, None, 100) is None  # the ideal simulator: not a noisy refusal
    message = vr.noisy_refusal(vr.MAX_NOISY_QUBITS + 4, "fake_kyiv", None, 100)
    assert message is not None
    assert f"needs {vr.MAX_NOISY_QUBITS + 4} qubits" in message
    seconds = vr.NOISY_SECONDS_AT_SAMPLE * 2 ** (vr.MAX_NOISY_QUBITS + 4 - vr.SAMPLE_QUBITS)
    assert f"at least {seconds:,.0f} s per evaluation" in message
    assert f"at most {vr.MAX_NOISY_QUBITS} qubits" in message


def test_a_device_without_a_token_says_so(
    stops_csv: Path,  # noqa: F811 (the fixture)
    monkeypatch: pytest.MonkeyPatch,
    parse_protocol_lines: Callable[[str], Lines],
) -> None:
    monkeypatch.delenv(devices.LOCAL_TESTING_ENV, raising=False)
    body = _body(
        "example with model_type Quantum", use_quantum_simulator=False, quantum_device_backend="ibm_kyiv"
    )
    code, lines = run("vehicle-routing", body, stops_csv, None, parse_protocol_lines)
    line = refusal(code, lines)
    assert line["message"] == devices.NO_TOKEN.format(device="ibm_kyiv")


def test_the_refusals_evaluation_count_is_the_optimizers() -> None:
    spsa = vr.solve_quantum(_three_stops(), "QAOA", optimizer="SPSA", maxiter=2, reps=1, seed=3)
    assert vr.evaluations_of("SPSA", 2) == spsa["optimizer"]["evaluations"]
    cobyla = vr.solve_quantum(_three_stops(), "QAOA", optimizer="COBYLA", maxiter=7, reps=1, seed=3)
    assert vr.evaluations_of("COBYLA", 7) == cobyla["optimizer"]["evaluations"] == 7
