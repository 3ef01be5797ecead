"""Job bodies of problem types are validated at run time against the problem file's own bodySchema.

The worker keeps no copy of a problem's body rules: editing schemas/problems/<id>.json changes what it
accepts, shared definitions referenced as defs.json#/$defs/<name> resolve against schemas/defs.json,
and a problem without a handler is still refused cleanly (exit code 2, one error line).
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.envelope import validate_job
from qmlstudio_worker.jobs.kinds import JOB_KINDS, JobKind
from qmlstudio_worker.jobs.runner import run_job
from qmlstudio_worker.problem_schemas import (
    DEFAULT_SCHEMAS_DIR,
    SCHEMAS_DIR_ENV,
    ProblemSchemas,
    resolve_schemas_dir,
)
from qmlstudio_worker.protocol import EXIT_RUNTIME_ERROR, EXIT_VALIDATION_ERROR, Emitter

PROBLEM = "stock-price-prediction"
FIXTURE = REPO_ROOT / "src" / "generated" / "fixtures" / f"{PROBLEM}.job-requests.json"


def example_body() -> dict[str, Any]:
    body: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))["requests"][0]["body"]
    return body


def envelope(body: dict[str, Any]) -> dict[str, Any]:
    return {"kind": PROBLEM, "job_id": "7", "params": body}


# A registry where the problem has a handler, so a valid body gets past validation.
WITH_HANDLER: dict[str, JobKind] = {
    **JOB_KINDS,
    PROBLEM: JobKind(PROBLEM, "qmlstudio_worker.jobs.self_test", None, "stand-in handler"),
}


@pytest.fixture
def schemas_copy(tmp_path: Path) -> Path:
    target = tmp_path / "schemas"
    shutil.copytree(REPO_ROOT / "schemas", target)
    return target


def edit_body_schema(schemas_dir: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    path = schemas_dir / "problems" / f"{PROBLEM}.json"
    problem = json.loads(path.read_text(encoding="utf-8"))
    edit(problem["job"]["bodySchema"])
    path.write_text(json.dumps(problem), encoding="utf-8")


def refusal(document: dict[str, Any], problems: ProblemSchemas | None = None) -> JobValidationError:
    with pytest.raises(JobValidationError) as caught:
        validate_job(document, WITH_HANDLER, problems)
    return caught.value


def test_the_example_body_is_accepted_with_the_problem_files_rules() -> None:
    job = validate_job(envelope(example_body()), WITH_HANDLER)
    assert job.params["epochs"] == example_body()["epochs"]


def test_epochs_above_the_problem_files_maximum_is_refused_naming_the_field() -> None:
    error = refusal(envelope({**example_body(), "epochs": 1_000_000}))
    assert error.field == "/params/epochs"
    assert error.message.startswith("/params/epochs: 1000000 is greater than the maximum of ")


def test_editing_the_problem_file_changes_the_verdict(schemas_copy: Path) -> None:
    body = {**example_body(), "epochs": 1_000_000}
    assert refusal(envelope(body), ProblemSchemas(schemas_copy)).field == "/params/epochs"

    def allow_more(schema: dict[str, Any]) -> None:
        schema["properties"]["epochs"] = {"type": "integer", "minimum": 1, "maximum": 2_000_000}

    edit_body_schema(schemas_copy, allow_more)
    assert (
        validate_job(envelope(body), WITH_HANDLER, ProblemSchemas(schemas_copy)).params["epochs"] == 1_000_000
    )

    def allow_less(schema: dict[str, Any]) -> None:
        schema["properties"]["epochs"] = {"type": "integer", "minimum": 1, "maximum": 20}

    edit_body_schema(schemas_copy, allow_less)
    error = refusal(envelope({**body, "epochs": 21}), ProblemSchemas(schemas_copy))
    assert error.message == "/params/epochs: 21 is greater than the maximum of 20"


def test_refs_to_shared_definitions_resolve_against_defs_json(schemas_copy: Path) -> None:
    defs = json.loads((schemas_copy / "defs.json").read_text(encoding="utf-8"))["$defs"]
    edit_body_schema(
        schemas_copy, lambda schema: schema["properties"].update(epochs={"$ref": "defs.json#/$defs/epochs"})
    )
    problems = ProblemSchemas(schemas_copy)
    too_many = defs["epochs"]["maximum"] + 1
    error = refusal(envelope({**example_body(), "epochs": too_many}), problems)
    assert error.field == "/params/epochs"
    assert f"greater than the maximum of {defs['epochs']['maximum']}" in error.message
    assert validate_job(envelope(example_body()), WITH_HANDLER, problems)


def test_an_unknown_shared_definition_is_a_runtime_error_not_the_users_fault(
    schemas_copy: Path, parse_protocol_lines: Callable[[str], list[dict[str, Any]]]
) -> None:
    edit_body_schema(
        schemas_copy, lambda schema: schema["properties"].update(epochs={"$ref": "defs.json#/$defs/nope"})
    )
    out = io.StringIO()
    code = run_job(
        json.dumps(envelope(example_body())), Emitter(out), WITH_HANDLER, ProblemSchemas(schemas_copy)
    )
    assert code == EXIT_RUNTIME_ERROR
    (line,) = parse_protocol_lines(out.getvalue())
    assert line["kind"] == "runtime"
    assert line["message"] == "schema files: a job schema refers to '/$defs/nope', which does not exist"


def copy_problem(schemas_dir: Path, source: str, new_id: str, worker: str | None) -> dict[str, Any]:
    """A new problem file, a copy of ``source`` under another id (and ``job.worker`` when given)."""
    problem = json.loads((schemas_dir / "problems" / f"{source}.json").read_text(encoding="utf-8"))
    problem["id"] = new_id
    if worker is not None:
        problem["job"]["worker"] = worker
    (schemas_dir / "problems" / f"{new_id}.json").write_text(json.dumps(problem), encoding="utf-8")
    fixture = REPO_ROOT / "src" / "generated" / "fixtures" / f"{source}.job-requests.json"
    body: dict[str, Any] = json.loads(fixture.read_text(encoding="utf-8"))["requests"][0]["body"]
    return body


def test_a_problem_file_that_names_a_handler_runs_with_it_under_its_own_id(schemas_copy: Path) -> None:
    body = copy_problem(schemas_copy, "fraud-detection", "card-fraud", worker="fraud-detection")
    job = validate_job(
        {"kind": "card-fraud", "job_id": "7", "params": body}, problems=ProblemSchemas(schemas_copy)
    )
    assert job.kind.kind == "card-fraud"
    assert job.kind.handler_module == "qmlstudio_worker.problems.fraud_detection.handler"
    assert callable(job.kind.load_handler())


def test_a_problem_without_a_handler_is_refused_cleanly_after_its_body_is_checked(
    schemas_copy: Path,
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> None:
    # a new problem file whose handler package does not exist (its own id, no job.worker)
    body = copy_problem(schemas_copy, "brain-tumor", "lung-nodule", worker=None)
    out = io.StringIO()
    document = {"kind": "lung-nodule", "job_id": "7", "params": body}
    assert (
        run_job(json.dumps(document), Emitter(out), problems=ProblemSchemas(schemas_copy))
        == EXIT_VALIDATION_ERROR
    )
    (line,) = parse_protocol_lines(out.getvalue())
    assert line["field"] == "/kind"
    assert line["message"] == (
        "/kind: problem 'lung-nodule' has no handler in this worker yet "
        "(no module qmlstudio_worker.problems.lung_nodule.handler)"
    )

    out = io.StringIO()
    document = {"kind": "lung-nodule", "job_id": "7", "params": {**body, "unknown_field": 1}}
    assert (
        run_job(json.dumps(document), Emitter(out), problems=ProblemSchemas(schemas_copy))
        == EXIT_VALIDATION_ERROR
    )
    (line,) = parse_protocol_lines(out.getvalue())
    assert line["field"] == "/params/unknown_field"


def test_the_schemas_directory_is_the_flag_else_the_environment_else_beside_the_worker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(SCHEMAS_DIR_ENV, raising=False)
    assert DEFAULT_SCHEMAS_DIR == REPO_ROOT / "schemas"
    assert resolve_schemas_dir() == DEFAULT_SCHEMAS_DIR
    monkeypatch.setenv(SCHEMAS_DIR_ENV, str(tmp_path / "env"))
    assert resolve_schemas_dir() == tmp_path / "env"
    assert resolve_schemas_dir(str(tmp_path / "flag")) == tmp_path / "flag"
