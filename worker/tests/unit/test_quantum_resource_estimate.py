"""Resource estimate: from each problem's quantum example body, the circuit's transpiled size, evaluation
counts, shots and a time estimate; refusals for bodies without a circuit; the CLI's `estimate` command."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from conftest import REPO_ROOT, WarmWorker

from qmlstudio_worker.jobs.resource_estimate import estimate

# What an estimate counts and says is checked here, not how it times (conftest.one_timed_call).
pytestmark = pytest.mark.usefixtures("one_timed_call")


def quantum_body(problem: str, **changes: Any) -> dict[str, Any]:
    path = REPO_ROOT / "src" / "generated" / "fixtures" / f"{problem}.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Quantum"]
    return {**request["body"], **changes}


def test_vqc_estimate_counts_rows_iterations_and_shots() -> None:
    exact = estimate("fraud-detection", quantum_body("fraud-detection", optimizer_alg="COBYLA"), rows=1000)
    assert exact["model"] == "Variational Quantum Classifier"
    assert exact["qubits"] == 4
    assert exact["depth"] > 10
    assert exact["two_qubit_gates"] > 0
    train_share = 1 - quantum_body("fraud-detection")["test_ratio"]
    assert exact["evaluations_per_iteration"] == round(1000 * train_share)
    assert exact["circuit_evaluations"] == exact["evaluations_per_iteration"] * exact["iterations"]
    assert exact["total_shots"] is None
    assert exact["estimated_seconds"] > 0
    sampled = estimate(
        "fraud-detection",
        quantum_body("fraud-detection", quantum_device_backend="qasm_simulator", quantum_shots=512),
        rows=1000,
    )
    assert sampled["total_shots"] == 512 * sampled["circuit_evaluations"]
    deeper = estimate("fraud-detection", quantum_body("fraud-detection", circuit_repetition=4), rows=1000)
    assert deeper["depth"] > exact["depth"]
    spsa = estimate("fraud-detection", quantum_body("fraud-detection", optimizer_alg="SPSA"), rows=1000)
    assert spsa["evaluations_per_iteration"] == 2 * exact["evaluations_per_iteration"]


def test_qsvc_and_routing_and_portfolio_estimates() -> None:
    qsvc = estimate(
        "fraud-detection",
        quantum_body("fraud-detection", model="Quantum Support Vector Classifier"),
        rows=100,
    )
    assert qsvc["depth"] > 0  # compute-uncompute with two inputs: nothing cancels
    assert qsvc["evaluations_per_iteration"] > 0
    routing = estimate("vehicle-routing", quantum_body("vehicle-routing"), rows=4)
    assert routing["qubits"] == 14
    assert routing["estimated_seconds"] is not None
    too_big = estimate("vehicle-routing", quantum_body("vehicle-routing"), rows=5)
    assert too_big["qubits"] == 30
    assert too_big["estimated_seconds"] is None
    assert "limit of 16" in too_big["note"]
    body = quantum_body("portfolio-optimization")
    portfolio = estimate("portfolio-optimization", body)
    assert portfolio["qubits"] == len(body["stocks_names"])


def test_bodies_without_a_circuit_are_refused() -> None:
    classical = quantum_body("fraud-detection", model="SVM")
    with pytest.raises(ValueError, match="runs no quantum circuit"):
        estimate("fraud-detection", classical)
    with pytest.raises(ValueError, match="no quantum model"):
        estimate("brain-tumor", {"model": "Quantum"})


def test_cli_estimate_answers_one_json_line(warm_worker: WarmWorker) -> None:
    # 3 rows (6 qubits), not the sample's 4 (14): the CLI's line is checked here, the 14-qubit estimate above.
    # The command runs in a process of its own: a child of the session's warm worker (conftest.py).
    request = {"kind": "vehicle-routing", "params": quantum_body("vehicle-routing"), "rows": 3}
    done = warm_worker.command("estimate", request)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    assert json.loads(line)["type"] == "result"
    assert json.loads(line)["data"]["qubits"] == 6


def _estimate_command(request: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    """The CLI's estimate command in this process (the separate process above proves the command itself):
    its exit code and its one protocol line."""
    from qmlstudio_worker import cli

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(request)))
    out = io.StringIO()
    code = cli._command_estimate(out, None)  # type: ignore[arg-type]
    (line,) = out.getvalue().splitlines()
    return code, json.loads(line)


def test_cli_estimate_refuses_a_request_without_a_row_count(monkeypatch: pytest.MonkeyPatch) -> None:
    request = {"kind": "vehicle-routing", "params": quantum_body("vehicle-routing")}
    code, refusal = _estimate_command(request, monkeypatch)
    assert code == 2
    assert (refusal["type"], refusal["kind"]) == ("error", "validation")
    assert "row count" in refusal["message"]


def test_noise_model_estimate_transpiles_for_its_device_and_times_the_noisy_simulation() -> None:
    from qmlstudio_worker.jobs.resource_estimate import RUN_SEED, _binary_classifier
    from qmlstudio_worker.quantum.backends import prepare_noisy

    body = quantum_body("portfolio-optimization", optimizer_alg_maxiter=10, circuit_repetition=1)
    ideal = estimate("portfolio-optimization", body)
    noisy = estimate("portfolio-optimization", body, noise_model="fake_kyiv")
    assert (ideal["noise_model"], noisy["noise_model"]) == (None, "fake_kyiv")
    assert ideal["transpiled_for"].startswith("the run's exact simulator")
    assert noisy["transpiled_for"].startswith("fake_kyiv")
    # The device has no all-to-all coupling: its ISA circuit is deeper, with at least as many two-qubit gates.
    assert noisy["depth"] > ideal["depth"]
    assert noisy["two_qubit_gates"] >= ideal["two_qubit_gates"]
    assert set(noisy["gate_counts"]) - {"measure", "barrier"} <= {"ecr", "rz", "sx", "x"}
    assert noisy["shots_per_evaluation"] == body["quantum_shots"]
    assert noisy["total_shots"] == body["quantum_shots"] * noisy["circuit_evaluations"]
    assert noisy["estimated_seconds"] > 0
    assert "fake_kyiv noise" in noisy["simulation"]

    # The same numbers as the circuit a noisy fraud VQC run transpiles (prepare_noisy, the run's seed).
    fraud = quantum_body("fraud-detection", optimizer_alg="COBYLA")
    reported = estimate("fraud-detection", fraud, rows=100, noise_model="fake_brisbane")
    circuit = _binary_classifier(fraud, 100)["circuit"]
    ran = prepare_noisy(circuit, list(circuit.parameters), "fake_brisbane", 64, RUN_SEED).summary()
    assert reported["depth"] == ran["transpiled_depth"]
    assert reported["two_qubit_gates"] == ran["transpiled_two_qubit_gates"]


def test_device_estimate_uses_the_devices_offline_snapshot() -> None:
    body = quantum_body(
        "portfolio-optimization",
        use_quantum_simulator=False,
        quantum_device_backend="ibm_torino",
        circuit_repetition=1,
    )
    found = estimate("portfolio-optimization", body)
    assert found["device"] == "ibm_torino"
    assert found["transpiled_for"].startswith("fake_torino (its offline snapshot)")
    assert "cz" in found["gate_counts"]  # Torino's two-qubit gate (Kyiv's is ECR)
    assert found["estimated_seconds"] is None
    assert "provider's queue" in found["note"]
    with pytest.raises(ValueError, match="no offline snapshot"):
        estimate("portfolio-optimization", {**body, "quantum_device_backend": "ibm_nowhere"})
    with pytest.raises(ValueError, match="Unknown noise model"):
        estimate("portfolio-optimization", quantum_body("portfolio-optimization"), noise_model="fake_nowhere")


def test_models_without_a_noisy_path_say_what_their_job_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from qmlstudio_worker.jobs import resource_estimate

    # The 14-qubit noisy call takes ~15 s of CPU: here it is not run but its timing is asked for and used
    # (the sample's noisy circuits run in test_vehicle_routing_noise's shipped-sample test; the 6-qubit
    # estimate below times its noisy call for real).
    timed: list[Any] = []
    with monkeypatch.context() as stub:
        stub.setattr(resource_estimate, "_timed", lambda action: timed.append(action) or 2.0)
        sample = estimate("vehicle-routing", quantum_body("vehicle-routing"), rows=4, noise_model="fake_kyiv")
    assert len(timed) == 2  # the exact evaluation, then the noisy call the run repeats
    assert sample["transpiled_for"].startswith("fake_kyiv")
    assert sample["qubits"] == 14  # the shipped sample runs under noise (statevector trajectories)
    assert sample["estimated_seconds"] >= 2.0  # at least the one call it timed
    assert sample["note"] is None
    small = estimate("vehicle-routing", quantum_body("vehicle-routing"), rows=3, noise_model="fake_kyiv")
    assert small["qubits"] == 6
    assert small["estimated_seconds"] > 0
    assert small["note"] is None
    stock = quantum_body("stock-price-prediction")
    exact = estimate("stock-price-prediction", stock, rows=200)
    tested = estimate("stock-price-prediction", stock, rows=200, noise_model="fake_kyiv")
    assert tested["note"] is None  # it trains under the noise: no "trained on the exact simulator"
    assert tested["simulation"].startswith("trained on the exact noisy channel of fake_kyiv")
    assert tested["estimated_seconds"] > 0
    on_device = {**stock, "use_quantum_simulator": False, "quantum_device_backend": "ibm_kyiv"}
    assert "ideal simulator only" in estimate("stock-price-prediction", on_device, rows=200)["note"]
    assert exact["note"] is None


def test_the_estimate_counts_the_calls_and_evaluations_the_run_makes() -> None:
    import numpy as np

    from qmlstudio_worker.problems.portfolio_optimization.quantum_solver import solve_qaoa
    from qmlstudio_worker.problems.portfolio_optimization.selection import PortfolioProblem
    from qmlstudio_worker.problems.vehicle_routing import routing as vr

    returns = np.random.default_rng(1).normal(0.001, 0.02, (60, 3))
    problem = PortfolioProblem(
        assets=("A", "B", "C"),
        mu=returns.mean(axis=0),
        sigma=np.cov(returns, rowvar=False),
        risk_factor=0.5,
        budget=1,
    )
    body = quantum_body(
        "portfolio-optimization",
        model="QAOA",
        stocks_names=["A", "B", "C"],
        optimizer_alg="SPSA",
        optimizer_alg_maxiter=2,
        circuit_repetition=1,
        quantum_shots=64,
    )
    estimated = estimate("portfolio-optimization", body, noise_model="fake_kyiv")
    ran = solve_qaoa(problem, "SPSA", 2, 1, 42, 64, noise_model="fake_kyiv")
    # SPSA: its calibration, 2 per step and the final point; then the final measurement; one row per call
    assert estimated["optimizer_evaluations"] == ran["optimizer"]["evaluations"]
    assert estimated["simulator_calls"] == ran["backend_run"]["simulator_calls"]
    assert estimated["noisy_circuits_run"] == ran["backend_run"]["circuits_run"]
    assert estimated["total_shots"] is not None

    stops = vr.RoutingInstance(
        names=["depot", "a", "b"],
        coordinates=np.asarray([[52.52, 13.40], [52.49, 13.39], [52.49, 13.41]]),
        demand=np.zeros(3),
        depot=0,
        vehicles=1,
        capacity=100,
    )
    routing = quantum_body("vehicle-routing", model="VQE", optimizer_alg="COBYLA", optimizer_alg_maxiter=5)
    estimated = estimate("vehicle-routing", routing, rows=3, noise_model="fake_kyiv")
    ran = vr.solve_quantum(stops, "VQE", "COBYLA", 5, 1, 42, noise_model="fake_kyiv")
    assert estimated["optimizer_evaluations"] == ran["optimizer"]["evaluations"] == 5
    assert estimated["simulator_calls"] == ran["backend_run"]["simulator_calls"] == 6


def test_noisy_training_estimates_count_what_the_runs_do() -> None:
    """The hybrid forecaster under a noise model and ADAM under a noise model train on the torch density
    simulation (no shots): the estimate counts its rows and only the Aer circuits that follow carry shots."""
    import numpy as np
    import pandas as pd

    from qmlstudio_worker.problems.portfolio_optimization.quantum_solver import solve_qaoa
    from qmlstudio_worker.problems.portfolio_optimization.selection import PortfolioProblem
    from qmlstudio_worker.quantum import hybrid

    csv = REPO_ROOT / "samples" / "apple_google_stock.csv"
    file = pd.read_csv(csv)
    body = quantum_body(
        "stock-price-prediction",
        from_index=1,
        to_index=80,
        train_test_split=0.6,
        epochs=2,
        qubits=4,
        quantum_shots=256,
    )
    estimated = estimate("stock-price-prediction", body, rows=len(file), noise_model="fake_kyiv")
    ran, _ = hybrid.train_quantum_forecaster(
        file.head(80),  # rows 1..80, as the handler selects them
        training_features=["Close", "High", "Low", "Open"],
        prediction_feature="Close",
        train_share=0.6,
        epochs=2,
        learning_rate=0.05,
        qubits=4,
        noise_model="fake_kyiv",
        shots=256,
    )
    train, test = ran["data"]["train_windows"], ran["data"]["test_windows"]
    assert (train, test) == (38, 32)  # the selected rows' windows, not the whole file's 5,398 rows
    assert estimated["evaluations_per_iteration"] == 2 * train + test
    assert estimated["noisy_training_rows"] == estimated["circuit_evaluations"]
    assert estimated["noisy_training_rows"] == ran["noisy_training"]["rows_simulated"]
    assert estimated["noisy_circuits_run"] == ran["backend_run"]["circuits_run"] == test
    assert estimated["simulator_calls"] == ran["backend_run"]["simulator_calls"]
    assert estimated["total_shots"] == test * 256  # only the test windows on Aer take shots
    assert estimated["note"] is None
    assert "4 active qubits" in estimated["simulation"]
    assert estimated["estimated_seconds"] > 0

    returns = np.random.default_rng(1).normal(0.001, 0.02, (60, 3))
    problem = PortfolioProblem(
        assets=("A", "B", "C"),
        mu=returns.mean(axis=0),
        sigma=np.cov(returns, rowvar=False),
        risk_factor=0.5,
        budget=1,
    )
    portfolio = quantum_body(
        "portfolio-optimization",
        model="QAOA",
        stocks_names=["A", "B", "C"],
        optimizer_alg="ADAM",
        optimizer_alg_maxiter=4,
        circuit_repetition=1,
        quantum_shots=64,
    )
    estimated = estimate("portfolio-optimization", portfolio, noise_model="fake_kyiv")
    solved = solve_qaoa(problem, "ADAM", 4, 1, 42, 64, noise_model="fake_kyiv")
    # one row per ADAM step through the density simulation, then the final circuit once on Aer
    assert estimated["noisy_training_rows"] == solved["noisy_training"]["rows_simulated"] == 4
    assert estimated["evaluations_per_iteration"] == 1
    assert estimated["simulator_calls"] == solved["backend_run"]["simulator_calls"]
    assert estimated["noisy_circuits_run"] == solved["backend_run"]["circuits_run"] == 1
    assert estimated["total_shots"] == 64


def test_adam_under_noise_above_the_one_row_limit_is_estimated_as_the_runs_refusal() -> None:
    found = estimate(
        "vehicle-routing",
        quantum_body("vehicle-routing", optimizer_alg="ADAM"),
        rows=4,
        noise_model="fake_kyiv",
    )
    assert found["qubits"] == 14
    assert found["estimated_seconds"] is None
    assert "at most 10 qubits" in found["note"]
    assert "choose COBYLA or SPSA" in found["note"]


def test_an_estimate_with_repeats_reports_per_run_figures_and_the_totals_of_all_repeats() -> None:
    body = quantum_body("fraud-detection", quantum_device_backend="qasm_simulator", quantum_shots=256)
    found = estimate("fraud-detection", body, rows=100, repeats=3)
    # the figures stay per run: the evaluations of one run, its shots
    assert found["repeats"] == 3
    assert found["circuit_evaluations"] == found["evaluations_per_iteration"] * found["iterations"]
    assert found["total_shots"] == 256 * found["circuit_evaluations"]
    totals = found["all_repeats"]
    assert totals["circuit_evaluations"] == 3 * found["circuit_evaluations"]
    assert totals["total_shots"] == 3 * found["total_shots"]
    assert totals["estimated_seconds"] == pytest.approx(3 * found["estimated_seconds"], abs=0.002)
    single = estimate("fraud-detection", body, rows=100)
    assert single["repeats"] == 1
    assert single["all_repeats"]["circuit_evaluations"] == single["circuit_evaluations"]
    assert single["all_repeats"]["total_shots"] == single["total_shots"]
    exact = estimate("fraud-detection", quantum_body("fraud-detection"), rows=100, repeats=2)
    assert exact["total_shots"] is None  # the exact statevector: no shots, in one run or three
    assert exact["all_repeats"]["total_shots"] is None


def test_cli_estimate_refuses_repeats_outside_one_to_ten_naming_the_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    request = {"kind": "vehicle-routing", "params": quantum_body("vehicle-routing"), "rows": 4, "repeats": 11}
    code, refusal = _estimate_command(request, monkeypatch)
    assert code == 2
    assert (refusal["type"], refusal["kind"], refusal["field"]) == ("error", "validation", "/repeats")
    assert "Repeats must be a whole number from 1 to 10" in refusal["message"]
