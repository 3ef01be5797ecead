"""Every registered job kind has an importable handler and a valid params schema with usable defaults (a
problem kind: a problem file with a job.bodySchema)."""

from __future__ import annotations

import pytest
from jsonschema import Draft7Validator

from qmlstudio_worker.jobs.envelope import ENVELOPE_SCHEMA_FILE
from qmlstudio_worker.jobs.kinds import JOB_KINDS, load_schema
from qmlstudio_worker.problem_schemas import (
    DEFAULT_SCHEMAS_DIR,
    ProblemSchemas,
    fill_defaults,
    schema_defaults,
)


def test_envelope_schema_is_a_valid_draft7_schema() -> None:
    Draft7Validator.check_schema(load_schema(ENVELOPE_SCHEMA_FILE))


@pytest.mark.parametrize("kind", sorted(JOB_KINDS))
def test_job_kind_is_complete(kind: str) -> None:
    job_kind = JOB_KINDS[kind]
    assert job_kind.kind == kind
    assert Draft7Validator(load_schema(ENVELOPE_SCHEMA_FILE)).is_valid(
        {"kind": kind, "job_id": "1", "params": {}}
    )
    assert callable(job_kind.load_handler())
    if job_kind.params_schema_file is None:  # a problem: its body schema is the problem file's
        assert ProblemSchemas(DEFAULT_SCHEMAS_DIR).body_validator(kind) is not None
        return
    schema = job_kind.params_schema
    Draft7Validator.check_schema(schema)
    assert schema.get("type") == "object"
    # The defaults alone must make a valid params object.
    assert Draft7Validator(schema).is_valid(fill_defaults({}, schema_defaults(schema)))
