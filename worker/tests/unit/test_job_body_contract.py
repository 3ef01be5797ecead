"""Every problem's job body, as the TypeScript engine maps it, validates in the worker too.

Twin: codegen/generate-types.ts writes src/generated/fixtures/<problem>.job-requests.json from the
problem files (kept fresh by `npm run codegen:check`); this test reads the same files and validates
them with the worker's own run-time validator (the problem file's job.bodySchema, refs resolved).
"""

import copy
import json
from pathlib import Path

import pytest

from qmlstudio_worker.problem_schemas import ProblemSchemas

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = sorted((ROOT / "src" / "generated" / "fixtures").glob("*.job-requests.json"))
PROBLEMS = ProblemSchemas(ROOT / "schemas")


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _validator(fixture: dict):
    assert fixture["bodySchema"] == f"schemas/problems/{fixture['problem']}.json#/job/bodySchema"
    validator = PROBLEMS.body_validator(fixture["problem"])
    assert validator is not None
    return validator


def test_every_problem_has_fixtures():
    names = {path.name.removesuffix(".job-requests.json") for path in FIXTURES}
    assert {
        "stock-price-prediction",
        "portfolio-optimization",
        "fraud-detection",
        "demand-forecasting",
        "brain-tumor",
        "vehicle-routing",
    } <= names


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_mapped_bodies_validate(path: Path):
    fixture = _load(path)
    validator = _validator(fixture)
    assert fixture["requests"], "a fixture without requests proves nothing"
    for request in fixture["requests"]:
        errors = [e.message for e in validator.iter_errors(request["body"])]
        assert errors == [], f"{request['name']}: {errors}"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_a_body_missing_a_required_field_is_refused(path: Path):
    fixture = _load(path)
    validator = _validator(fixture)
    required = validator.schema.get("required", [])
    assert required, "the job-body schema names its required fields"
    body = copy.deepcopy(fixture["requests"][0]["body"])
    del body[required[0]]
    assert not validator.is_valid(body)
