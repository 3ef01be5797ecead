"""Parsing and validating the job envelope read from stdin.

The envelope is ``{"kind": str, "job_id": str, "params": {...}, "output_dir"?: str}``
(``schemas/job-envelope.schema.json``); ``params`` is then validated against the params schema of the
kind, and the schema's top-level defaults are filled in. Every failure is a JobValidationError that
names the offending field (``kind``, ``job_id``, ``params.shots``, ...).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError, relevance

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.registry import JOB_KINDS, JobKind, load_schema

ENVELOPE_SCHEMA_FILE = "job-envelope.schema.json"


@dataclass(frozen=True)
class Job:
    kind: JobKind
    job_id: str
    params: dict[str, Any]
    output_dir: Path | None


def format_path(parts: Iterable[str | int], root: str = "") -> str:
    """A dotted field path: ("params", "layers", 2, "units") -> "params.layers[2].units"."""
    text = root
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text = f"{text}.{part}" if text else str(part)
    return text


def _describe(error: ValidationError, root: str) -> JobValidationError:
    path = format_path(error.absolute_path, root)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        missing = [name for name in error.validator_value if name not in instance]
        field = format_path([missing[0]], path) if missing else path
        return JobValidationError(f"{field}: is required", field)
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = set(error.schema.get("properties", {}))
        extra = sorted(name for name in instance if name not in known)
        if extra:
            field = format_path([extra[0]], path)
            allowed = ", ".join(sorted(known)) or "none"
            return JobValidationError(f"{field}: unknown field (allowed: {allowed})", field)
    where = path or root or "job"
    return JobValidationError(f"{where}: {_message(error)}", path or root or None)


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
            t
            for e in type_errors
            for t in ([e.validator_value] if isinstance(e.validator_value, str) else e.validator_value)
        )
        return f"{error.instance!r} is not of type {expected}"
    return error.message


def validate_against(schema: dict[str, Any], instance: Any, root: str = "") -> None:
    """Raise a JobValidationError for the most relevant schema violation, if any.

    Errors are ordered by the path they occur at (shallowest first), then by jsonschema's relevance,
    so that e.g. a missing required field is reported before a problem inside a sibling.
    """
    errors = list(Draft7Validator(schema).iter_errors(instance))
    if not errors:
        return
    errors.sort(key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path], relevance(e)))
    raise _describe(errors[0], root)


def apply_defaults(schema: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``params`` with the schema's top-level property defaults filled in."""
    filled = copy.deepcopy(params)
    for name, prop in schema.get("properties", {}).items():
        if name not in filled and isinstance(prop, dict) and "default" in prop:
            filled[name] = copy.deepcopy(prop["default"])
    return filled


def parse_job_text(text: str) -> Any:
    if not text.strip():
        raise JobValidationError("job: no job received on stdin (expected one JSON object)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JobValidationError(f"job: not valid JSON ({exc})") from exc


def validate_job(document: Any, registry: dict[str, JobKind] | None = None) -> Job:
    """Validate a decoded envelope and its params; return the Job with defaults applied."""
    if not isinstance(document, dict):
        raise JobValidationError(f"job: must be a JSON object, got {type(document).__name__}")
    validate_against(load_schema(ENVELOPE_SCHEMA_FILE), document)
    kind_name: str = document["kind"]
    kinds = JOB_KINDS if registry is None else registry
    job_kind = kinds.get(kind_name)
    if job_kind is None:
        known = ", ".join(sorted(kinds))
        raise JobValidationError(f"kind: unknown job kind {kind_name!r} (known: {known})", "kind")
    schema = job_kind.params_schema
    validate_against(schema, document["params"], root="params")
    params = apply_defaults(schema, document["params"])
    output_dir = Path(document["output_dir"]) if "output_dir" in document else None
    return Job(kind=job_kind, job_id=document["job_id"], params=params, output_dir=output_dir)
