"""The resource estimate builds what the job runs from the model family its problem's handler declares
(``ESTIMATE_MODELS``), not from the problem id: a renamed copy of a problem file that names its handler
(``job.worker``) is estimated as that handler's run, and every declared family is one the estimate builds."""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT

from qmlstudio_worker.jobs.resource_estimate import FAMILIES, estimate
from qmlstudio_worker.problem_schemas import SCHEMAS_DIR_ENV

FIXTURES = REPO_ROOT / "src" / "generated" / "fixtures"
PROBLEMS = sorted(path.stem for path in (REPO_ROOT / "schemas" / "problems").glob("*.json"))


def quantum_body(problem: str, **changes: Any) -> dict[str, Any]:
    requests = json.loads((FIXTURES / f"{problem}.job-requests.json").read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Quantum"]
    return {**request["body"], **changes}


@pytest.fixture
def renamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Copies the schemas, adds a copy of ``source`` as ``new_id`` run by ``source``'s handler."""
    target = tmp_path / "schemas"
    shutil.copytree(REPO_ROOT / "schemas", target)
    monkeypatch.setenv(SCHEMAS_DIR_ENV, str(target))

    def copy(source: str, new_id: str) -> None:
        problem = json.loads((target / "problems" / f"{source}.json").read_text(encoding="utf-8"))
        problem["id"] = new_id
        problem["job"]["worker"] = source
        (target / "problems" / f"{new_id}.json").write_text(json.dumps(problem), encoding="utf-8")

    return copy


def test_a_renamed_fraud_problem_is_estimated_as_its_handlers_vqc(renamed: Any) -> None:
    renamed("fraud-detection", "card-fraud")
    body = quantum_body("fraud-detection", optimizer_alg="COBYLA")
    copy = estimate("card-fraud", body, rows=1000)
    original = estimate("fraud-detection", body, rows=1000)
    assert copy["problem"] == "card-fraud"
    assert copy["model"] == "Variational Quantum Classifier"
    keys = ("qubits", "depth", "two_qubit_gates", "evaluations_per_iteration", "circuit_evaluations")
    assert {k: copy[k] for k in keys} == {k: original[k] for k in keys}


def test_a_renamed_portfolio_problem_counts_its_handlers_qubits(renamed: Any) -> None:
    renamed("portfolio-optimization", "fund-picker")
    body = quantum_body("portfolio-optimization")
    found = estimate("fund-picker", body)
    assert (found["model"], found["qubits"]) == (body["model"], len(body["stocks_names"]))


def test_a_renamed_classical_body_runs_no_quantum_circuit(renamed: Any) -> None:
    renamed("fraud-detection", "card-fraud")
    with pytest.raises(ValueError, match="runs no quantum circuit"):
        estimate("card-fraud", quantum_body("fraud-detection", model="Logistic Regression"))


@pytest.mark.parametrize("problem", PROBLEMS)
def test_every_handler_declares_families_the_estimate_builds(problem: str) -> None:
    handler = importlib.import_module(f"qmlstudio_worker.problems.{problem.replace('-', '_')}.handler")
    declared = handler.ESTIMATE_MODELS
    assert declared, f"{problem} declares no quantum model family"
    families = {entry if isinstance(entry, str) else entry[0] for entry in declared.values()}
    assert families <= set(FAMILIES)
