"""Defaults have one source: the problem file. The worker fills a missing or null body field from it
(``problem_schemas.fill_defaults``) and its modules repeat no default: a literal fallback such as
``params.get("optimizer_alg") or "COBYLA"`` anywhere in the package fails here."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, WORKER_DIR

from qmlstudio_worker.jobs.envelope import validate_job
from qmlstudio_worker.problem_schemas import ProblemSchemas

PACKAGE = WORKER_DIR / "qmlstudio_worker"
# The names the worker's modules give a job body (and its extension, which the server fills the same way).
BODY_NAMES = frozenset({"params", "body", "extension"})
FIXTURES = REPO_ROOT / "src" / "generated" / "fixtures"


def example_body(problem: str) -> dict[str, Any]:
    text = (FIXTURES / f"{problem}.job-requests.json").read_text(encoding="utf-8")
    body: dict[str, Any] = json.loads(text)["requests"][0]["body"]
    return body


def filled(problem: str, body: dict[str, Any], schemas: Path = REPO_ROOT / "schemas") -> dict[str, Any]:
    envelope = {"kind": problem, "job_id": "1", "params": body}
    return validate_job(envelope, problems=ProblemSchemas(schemas)).params


def test_null_quantum_fields_take_the_problem_files_defaults() -> None:
    body = example_body("fraud-detection")
    for name in ("pqc", "optimizer_alg", "optimizer_alg_maxiter", "circuit_repetition", "quantum_shots"):
        body[name] = None
    params = filled("fraud-detection", body)
    # pqc's default is the form field's (job.body maps it), the others come through defs.json
    assert params["pqc"] == "RealAmplitudes"
    assert params["optimizer_alg"] == "COBYLA"
    assert params["optimizer_alg_maxiter"] == 100
    assert params["circuit_repetition"] == 2
    assert params["quantum_shots"] == 1024
    assert body["pqc"] is None  # the input is not touched


def test_editing_a_default_in_the_schema_files_changes_what_the_worker_runs(tmp_path: Path) -> None:
    schemas = tmp_path / "schemas"
    shutil.copytree(REPO_ROOT / "schemas", schemas)
    defs_path = schemas / "defs.json"
    defs = json.loads(defs_path.read_text(encoding="utf-8"))
    defs["$defs"]["optimizerAlgorithm"]["default"] = "SPSA"
    defs["$defs"]["circuitRepetition"]["default"] = 3
    defs_path.write_text(json.dumps(defs), encoding="utf-8")
    body = {**example_body("portfolio-optimization"), "optimizer_alg": None, "circuit_repetition": None}
    params = filled("portfolio-optimization", body, schemas)
    assert params["optimizer_alg"] == "SPSA"
    assert params["circuit_repetition"] == 3


def test_given_values_and_optional_fields_left_out_are_kept() -> None:
    body = {**example_body("fraud-detection"), "optimizer_alg": "ADAM"}
    assert filled("fraud-detection", body)["optimizer_alg"] == "ADAM"
    brain = example_body("brain-tumor")
    classical = {k: v for k, v in brain.items() if k not in ("n_qubits", "circuit_depth", "patch_size")}
    classical["training_model_type"] = "classical"
    # a classical brain tumor body leaves the quantum keys out: no default puts them back
    assert "n_qubits" not in filled("brain-tumor", classical)


def test_an_estimate_fills_the_optional_fields_a_form_would_send_too() -> None:
    problems = ProblemSchemas(REPO_ROOT / "schemas")
    body = {"model_name": "QSVM", "training_model_type": "quantum"}
    assert "n_qubits" not in problems.fill_defaults("brain-tumor", body)
    filled = problems.fill_defaults("brain-tumor", body, optional=True)
    # the form's Num Qubits and Circuit Depth defaults, as the run would get them
    assert (filled["n_qubits"], filled["circuit_depth"]) == (4, 3)


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(_is_literal(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        return all(v is not None and _is_literal(v) for v in [*node.keys, *node.values])
    if isinstance(node, ast.UnaryOp):
        return _is_literal(node.operand)
    if isinstance(node, ast.BinOp):
        return _is_literal(node.left) and _is_literal(node.right)
    return False


def _body_get(node: ast.expr) -> ast.Call | None:
    """``params.get(...)`` (also inside ``int(...)``/``str(...)``): a read of a body field."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
        node = node.args[0]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in BODY_NAMES
    ):
        return node
    return None


def literal_fallbacks(source: str) -> list[int]:
    """Lines where a body field falls back to a literal: ``params.get(k) or <literal>`` or
    ``params.get(k, <literal>)``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        or_literal = (
            isinstance(node, ast.BoolOp)
            and isinstance(node.op, ast.Or)
            and any(_body_get(v) for v in node.values[:-1])
            and _is_literal(node.values[-1])
        )
        get_literal = (
            isinstance(node, ast.Call)
            and _body_get(node) is node
            and len(node.args) == 2
            and _is_literal(node.args[1])
        )
        if or_literal or get_literal:
            lines.append(node.lineno)
    return sorted(lines)


def test_the_check_catches_each_kind_of_literal_fallback() -> None:
    offending = (
        'optimizer = params.get("optimizer_alg") or "COBYLA"\n'
        'reps = int(params.get("circuit_repetition") or 2)\n'
        'split = extension.get("split") or "stratified"\n'
        'names = len(body.get("stocks_names") or [])\n'
        'ratio = params.get("test_ratio", 1.0 - 0.7)\n'
        'fine = params["optimizer_alg"]\n'
        'also_fine = trained.get("metrics") or {}\n'
    )
    assert literal_fallbacks(offending) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_repeats_a_default(path: Path) -> None:
    assert literal_fallbacks(path.read_text(encoding="utf-8")) == [], "use the filled body's value"
