"""Contract test for the job envelope read on stdin.

Twin: tests/contracts/worker-job.test.ts (TypeScript, ajv) reads the same fixtures
(tests/contracts/worker-job.fixtures.json) and the worker's schemas; both must agree. This side also
checks that the worker's validation error names the expected field.
"""

from __future__ import annotations

import json

import pytest
from conftest import CONTRACTS_DIR, load_json

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.envelope import validate_job

FIXTURES = load_json(CONTRACTS_DIR / "worker-job.fixtures.json")


@pytest.mark.parametrize("job", FIXTURES["valid"], ids=lambda job: json.dumps(job)[:70])
def test_valid_job_is_accepted(job: dict) -> None:
    parsed = validate_job(job)
    assert parsed.kind.kind == job["kind"]
    assert parsed.job_id == job["job_id"]


@pytest.mark.parametrize(
    "case", FIXTURES["invalid"], ids=lambda case: f"{case['field']}:{json.dumps(case['job'])[:60]}"
)
def test_invalid_job_is_refused_naming_the_field(case: dict) -> None:
    with pytest.raises(JobValidationError) as caught:
        validate_job(case["job"])
    assert caught.value.field == case["field"]
    assert caught.value.message.startswith(f"{case['field']}: ")
