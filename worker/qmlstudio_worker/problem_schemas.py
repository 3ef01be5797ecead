"""Job bodies of the problem types, validated against the problem files themselves.

``job.bodySchema`` in ``schemas/problems/<id>.json`` is the one definition of a problem's job body: the
engine maps the forms onto it, codegen types it, and the worker validates each body against it when the
job runs (the worker keeps no copy). ``$ref``s to shared definitions (``defs.json#/$defs/<name>``, the
only kind the engine supports) resolve against ``schemas/defs.json`` through a ``referencing`` Registry.

Where the schemas directory is, first match wins: ``run --schemas-dir DIR`` (the server passes the
directory it loaded its problems from), the ``QMLSTUDIO_SCHEMAS_DIR`` environment variable, then
``schemas/`` beside the worker directory (``worker/../schemas``: a checkout or an editable install).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SCHEMAS_DIR_ENV = "QMLSTUDIO_SCHEMAS_DIR"
DEFAULT_SCHEMAS_DIR = Path(__file__).resolve().parents[2] / "schemas"
DEFS_URI = "defs.json"


def resolve_schemas_dir(flag: str | None = None) -> Path:
    """The schemas directory: the CLI flag, else the environment variable, else the package default."""
    chosen = flag or os.environ.get(SCHEMAS_DIR_ENV) or DEFAULT_SCHEMAS_DIR
    return Path(chosen)


class SchemaFileError(Exception):
    """A schema file is missing, not JSON or not a valid schema: the installation is broken, not the job."""


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SchemaFileError(f"{path}: {exc}") from exc


class ProblemSchemas:
    """The problem files of one schemas directory; each body validator is built once."""

    def __init__(self, schemas_dir: Path) -> None:
        self.schemas_dir = schemas_dir
        self._validators: dict[str, Validator | None] = {}
        self._registry: Registry[Any] | None = None

    def problem_file(self, problem_id: str) -> Path:
        return self.schemas_dir / "problems" / f"{problem_id}.json"

    def _shared_definitions(self) -> Registry[Any]:
        if self._registry is None:
            # defs.json names its own meta-schema in $schema; its definitions are 2020-12 JSON Schema.
            defs: Resource[Any] = DRAFT202012.create_resource(_read_json(self.schemas_dir / DEFS_URI))
            self._registry = Registry().with_resource(DEFS_URI, defs)
        return self._registry

    def body_validator(self, problem_id: str) -> Validator | None:
        """The validator of the problem's ``job.bodySchema``; None when there is no such problem file.

        ``problem_id`` must already match the envelope's kind pattern (no path separators).
        """
        if problem_id not in self._validators:
            self._validators[problem_id] = self._build(problem_id)
        return self._validators[problem_id]

    def _build(self, problem_id: str) -> Validator | None:
        path = self.problem_file(problem_id)
        if not path.is_file():
            return None
        problem = _read_json(path)
        schema = problem.get("job", {}).get("bodySchema") if isinstance(problem, dict) else None
        if not isinstance(schema, dict):
            raise SchemaFileError(f"{path}: has no job.bodySchema object")
        cls = validators.validator_for(schema, default=Draft202012Validator)
        try:
            cls.check_schema(schema)
        except Exception as exc:
            raise SchemaFileError(f"{path}#/job/bodySchema: not a valid JSON Schema: {exc}") from exc
        validator: Validator = cls(schema, registry=self._shared_definitions())
        return validator
