"""The resource estimate estimates what runs, for every problem, in the run's own terms.

A classical body (a forecaster's LSTM, brain tumor's densenet) is refused plainly as running no quantum
circuit (not with a device error); the brain tumor QCNN is estimated; and on the ideal simulator the
estimate's depth and two-qubit gates are the numbers the run logs for its circuit (the stock hybrid QNN and
portfolio QAOA, both run here for real), its circuit evaluations one per training window per epoch.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, dataset_entry

from qmlstudio_worker.jobs.resource_estimate import estimate
from qmlstudio_worker.jobs.runner import run_job
from qmlstudio_worker.protocol import EXIT_OK, Emitter

SAMPLES = REPO_ROOT / "samples"
FIXTURES = REPO_ROOT / "src" / "generated" / "fixtures"


def example(problem: str, name: str, **changes: Any) -> dict[str, Any]:
    requests = json.loads((FIXTURES / f"{problem}.job-requests.json").read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == name]
    return {**request["body"], **changes}


def run_logs(kind: str, body: dict[str, Any], dataset: Path) -> list[str]:
    extension = {
        "dataset": dataset_entry(dataset),
        "normalization": "[0,1]",
        "missing_values": "impute_average",
        "target_column": None,
        "seed": 42,
    }
    stream = io.StringIO()
    code = run_job(
        json.dumps({"kind": kind, "job_id": "5", "params": body, "extension": extension}), Emitter(stream)
    )
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert code == EXIT_OK, lines[-1]
    return [line["message"] for line in lines if line["type"] == "log"]


@pytest.mark.parametrize(
    ("problem", "name"),
    [
        ("stock-price-prediction", "example with model_type Classical"),
        ("demand-forecasting", "example with model_type Classical"),
        ("brain-tumor", "example with modelType classical"),
    ],
)
def test_a_classical_body_is_refused_as_running_no_quantum_circuit(problem: str, name: str) -> None:
    with pytest.raises(ValueError, match="runs no quantum circuit"):
        estimate(problem, example(problem, name), rows=100)


def test_the_brain_tumor_qcnn_is_estimated() -> None:
    body = example("brain-tumor", "example with modelType quantum", epochs=2, n_qubits=4, circuit_depth=2)
    found = estimate("brain-tumor", body, rows=24)
    assert (found["model"], found["qubits"]) == ("QCNN", 4)
    assert found["depth"] > 0
    assert found["two_qubit_gates"] == 2 * 3  # RealAmplitudes reps 2: a CX chain of 3 each
    # 25 patches of the 6x6 feature map (2x2, step 1) of each of the 24 slices, for 2 epochs
    assert found["circuit_evaluations"] == 25 * 24 * 2
    assert found["estimated_seconds"] > 0


def test_stock_hybrid_estimate_agrees_with_the_runs_log() -> None:
    body = example("stock-price-prediction", "example with model_type Quantum", epochs=5, to_index=60)
    logs = run_logs("stock-price-prediction", body, SAMPLES / "apple_google_stock.csv")
    line = next(m for m in logs if "circuit depth" in m)
    match = re.search(r"(\d+) training .* \(circuit depth (\d+), (\d+) CX\)", line)
    assert match, line
    windows, depth, cx = (int(g) for g in match.groups())
    found = estimate("stock-price-prediction", body, rows=60)
    assert (found["depth"], found["two_qubit_gates"]) == (depth, cx)
    assert found["evaluations_per_iteration"] == windows
    assert found["circuit_evaluations"] == windows * body["epochs"]


def test_portfolio_qaoa_estimate_agrees_with_the_runs_log() -> None:
    body = example(
        "portfolio-optimization",
        "example with model_type Classical",
        model="QAOA",
        use_quantum_simulator=True,
        quantum_device_backend="aer_simulator_statevector",
        optimizer_alg="COBYLA",
        optimizer_alg_maxiter=20,
        circuit_repetition=1,
    )
    logs = run_logs("portfolio-optimization", body, SAMPLES / "five_companies_stock.csv")
    line = next(m for m in logs if "circuit depth" in m)
    match = re.search(r"(\d+) qubits.* (\d+) iterations.*circuit depth (\d+), (\d+) two-qubit gates", line)
    assert match, line
    qubits, iterations, depth, two_qubit = (int(g) for g in match.groups())
    found = estimate("portfolio-optimization", body)
    assert (found["qubits"], found["depth"], found["two_qubit_gates"]) == (qubits, depth, two_qubit)
    assert found["circuit_evaluations"] == iterations


def test_the_brain_tumor_qsvm_is_estimated_by_its_kernel() -> None:
    body = example(
        "brain-tumor", "example with modelType quantum", model_name="QSVM", n_qubits=4, circuit_depth=1
    )
    found = estimate("brain-tumor", body, rows=100)
    assert (found["model"], found["qubits"]) == ("QSVM", 4)
    # 80 training slices against each other, then the 20 held-out ones against them
    assert found["circuit_evaluations"] == 80 * 80 + 20 * 80
    assert found["estimated_seconds"] > 0
