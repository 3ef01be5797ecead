"""Parsing and validating the job envelope read from stdin.

The envelope is ``{"kind": str, "job_id": str, "params": {...}, "output_dir"?: str, "extension"?: {...}}``
(``schemas/job-envelope.schema.json``). ``params`` is the job body, validated against the schema of its
kind: for a problem type, ``job.bodySchema`` of the problem file itself (``problem_schemas``); for a
worker kind such as ``self-test``, its ``schemas/<kind>.params.schema.json``. Missing or null fields
then take their defaults (``problem_schemas.fill_defaults``). Every failure is a JobValidationError
naming the offending field as a JSON pointer into the envelope (``/kind``, ``/job_id``, ``/params/epochs``).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator, validators
from jsonschema.exceptions import ValidationError, relevance
from jsonschema.protocols import Validator
from referencing.exceptions import Unresolvable

from qmlstudio_worker import pointer
from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.kinds import JOB_KINDS, JobKind, handler_module, load_schema, problem_kind
from qmlstudio_worker.problem_schemas import (
    ProblemSchemas,
    SchemaFileError,
    fill_defaults,
    resolve_schemas_dir,
    schema_defaults,
)

ENVELOPE_SCHEMA_FILE = "job-envelope.schema.json"
PARAMS_POINTER = "/params"


@dataclass(frozen=True)
class Job:
    kind: JobKind
    job_id: str
    params: dict[str, Any]
    output_dir: Path | None
    extension: dict[str, Any] = field(default_factory=dict)


def _describe(error: ValidationError, base: str) -> JobValidationError:
    path = pointer.join(error.absolute_path, base)
    instance = error.instance
    if (
        error.validator == "required"
        and isinstance(instance, dict)
        and isinstance(error.validator_value, list)
    ):
        missing = [name for name in error.validator_value if name not in instance]
        field = pointer.join([missing[0]], path) if missing else path
        return JobValidationError(f"{field}: is required", field)
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = set(error.schema.get("properties", {})) if isinstance(error.schema, dict) else set()
        extra = sorted(name for name in instance if name not in known)
        if extra:
            field = pointer.join([extra[0]], path)
            allowed = ", ".join(sorted(known)) or "none"
            return JobValidationError(f"{field}: unknown field (allowed: {allowed})", field)
    # The empty pointer is the whole envelope: no field to name.
    return JobValidationError(f"{path or 'job'}: {_message(error)}", path or None)


def _message(error: ValidationError) -> str:
    """jsonschema's message, made specific for anyOf/oneOf (e.g. an integer-or-null field)."""
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return error.message
    direct = [e for e in error.context if not e.relative_path]
    type_errors = [e for e in direct if e.validator == "type"]
    other = [e for e in direct if e.validator != "type"]
    if len(other) == 1:  # the value has the right type for one branch but breaks its constraint
        return other[0].message
    if direct and len(type_errors) == len(direct):
        expected = ", ".join(
            str(t)
            for e in type_errors
            for t in (e.validator_value if isinstance(e.validator_value, list) else [e.validator_value])
        )
        return f"{error.instance!r} is not of type {expected}"
    return error.message


def validate_with(validator: Validator, instance: Any, base: str = "") -> None:
    """Raise a JobValidationError for the most relevant violation, its field a pointer below ``base``.

    Errors are ordered by the path they occur at (shallowest first), then by jsonschema's relevance,
    so that e.g. a missing required field is reported before a problem inside a sibling.
    """
    try:
        errors = list(validator.iter_errors(instance))
    except Unresolvable as exc:  # a $ref the schema files do not define: the installation is broken
        raise SchemaFileError(f"a job schema refers to {exc.ref!r}, which does not exist") from exc
    if not errors:
        return
    errors.sort(key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path], relevance(e)))
    raise _describe(errors[0], base)


def validate_against(schema: dict[str, Any], instance: Any, base: str = "") -> None:
    """validate_with for a self-contained schema (its $schema picks the draft; draft-07 if none)."""
    validate_with(validators.validator_for(schema, default=Draft7Validator)(schema), instance, base)


def parse_job_text(text: str) -> Any:
    if not text.strip():
        raise JobValidationError("job: no job received on stdin (expected one JSON object)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JobValidationError(f"job: not valid JSON ({exc})") from exc


def validate_job(
    document: Any, registry: dict[str, JobKind] | None = None, problems: ProblemSchemas | None = None
) -> Job:
    """Validate a decoded envelope and its params; return the Job with defaults applied.

    A kind is either a worker kind with its own params schema (``self-test``) or a problem type whose
    body schema is the problem file's. A problem with no handler here yet is refused after its body was
    checked, so the message says what is missing rather than that the kind is unknown.
    """
    if not isinstance(document, dict):
        raise JobValidationError(f"job: must be a JSON object, got {type(document).__name__}")
    validate_against(load_schema(ENVELOPE_SCHEMA_FILE), document)
    kind_name: str = document["kind"]
    extension: dict[str, Any] = copy.deepcopy(document.get("extension", {}))
    kinds = JOB_KINDS if registry is None else registry
    job_kind = kinds.get(kind_name)
    params = document["params"]

    if job_kind is not None and job_kind.params_schema_file is not None:
        schema = job_kind.params_schema
        validate_against(schema, params, PARAMS_POINTER)
        filled = fill_defaults(params, schema_defaults(schema))
    else:
        problems = problems or ProblemSchemas(resolve_schemas_dir())
        body = problems.body_validator(kind_name)
        if body is None:
            known = ", ".join(sorted(kinds))
            where = f"no problem file {problems.problem_file(kind_name)}"
            raise JobValidationError(
                f"/kind: unknown job kind {kind_name!r} (worker kinds: {known}; {where})", "/kind"
            )
        validate_with(body, params, PARAMS_POINTER)
        job_kind = job_kind or problem_kind(kind_name, problems)
        if job_kind is None:
            declared = problems.declaration(kind_name)
            module = handler_module(declared.worker if declared else kind_name)
            raise JobValidationError(
                f"/kind: problem {kind_name!r} has no handler in this worker yet (no module {module})",
                "/kind",
            )
        filled = problems.fill_defaults(kind_name, params)
        extension = fill_defaults(extension, problems.extension_defaults(kind_name))

    return Job(
        kind=job_kind,
        job_id=document["job_id"],
        params=filled,
        output_dir=Path(document["output_dir"]) if "output_dir" in document else None,
        extension=extension,
    )
