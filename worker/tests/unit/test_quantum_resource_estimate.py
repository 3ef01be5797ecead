"""Resource estimate: from each problem's quantum example body, the circuit's transpiled size, evaluation
counts, shots and a time estimate; refusals for bodies without a circuit; the CLI's `estimate` command."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from conftest import REPO_ROOT

from qmlstudio_worker.quantum.resource_estimate import estimate


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


def test_cli_estimate_answers_one_json_line() -> None:
    request = {"kind": "vehicle-routing", "params": quantum_body("vehicle-routing"), "rows": 4}
    done = subprocess.run(
        [sys.executable, "-m", "qmlstudio_worker", "estimate"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    assert json.loads(line)["type"] == "result"
    assert json.loads(line)["data"]["qubits"] == 14
    bad = subprocess.run(
        [sys.executable, "-m", "qmlstudio_worker", "estimate"],
        input=json.dumps({"kind": "vehicle-routing", "params": quantum_body("vehicle-routing")}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 2
    refusal = json.loads(bad.stdout)
    assert (refusal["type"], refusal["kind"]) == ("error", "validation")
    assert "row count" in refusal["message"]
