"""Job bodies of the problem types, validated against the problem files themselves.

``job.bodySchema`` in ``schemas/problems/<id>.json`` is the one definition of a problem's job body: the
engine maps the forms onto it, codegen types it, and the worker validates each body against it when the
job runs (the worker keeps no copy). ``$ref``s to shared definitions (``defs.json#/$defs/<name>``, the
only kind the engine supports) resolve against ``schemas/defs.json`` through a ``referencing`` Registry.

Defaults have one source too: :func:`fill_defaults` gives a missing or null body field the default its
problem file declares, on the body property itself or, failing that, on the form field that
``job.body`` maps onto it (``RealAmplitudes`` for the fraud ``pqc``, ``COBYLA`` for ``optimizer_alg``, ...).
The worker's modules read the filled body and repeat no default.

Where the schemas directory is, first match wins: ``run --schemas-dir DIR`` (the server passes the
directory it loaded its problems from), the ``QMLSTUDIO_SCHEMAS_DIR`` environment variable, then
``schemas/`` beside the worker directory (``worker/../schemas``: a checkout or an editable install).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SCHEMAS_DIR_ENV = "QMLSTUDIO_SCHEMAS_DIR"
DEFAULT_SCHEMAS_DIR = Path(__file__).resolve().parents[2] / "schemas"
DEFS_URI = "defs.json"
DEFS_PREFIX = f"{DEFS_URI}#/$defs/"


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


@dataclass(frozen=True)
class Declaration:
    """A problem file's word to the worker: the handler package that runs it (``job.worker``, by default
    the problem's id) and the problem's name."""

    worker: str
    name: str


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

    def _problem(self, problem_id: str) -> dict[str, Any] | None:
        path = self.problem_file(problem_id)
        problem = _read_json(path) if path.is_file() else None
        return problem if isinstance(problem, dict) else None

    def declaration(self, problem_id: str) -> Declaration | None:
        """What the problem file declares for the worker; None when there is no such file."""
        problem = self._problem(problem_id)
        if problem is None:
            return None
        worker = problem.get("job", {}).get("worker", problem_id)
        return Declaration(worker=str(worker), name=str(problem.get("name", problem_id)))

    def _definitions(self) -> dict[str, Any]:
        defs = _read_json(self.schemas_dir / DEFS_URI)
        found = defs.get("$defs") if isinstance(defs, dict) else None
        return found if isinstance(found, dict) else {}

    def body_defaults(self, problem_id: str, *, optional: bool = False) -> dict[str, Any]:
        """Every body field's default in the problem file (none when there is no such file); with
        ``optional``, optional fields take their form field's default too."""
        problem = self._problem(problem_id)
        return problem_defaults(problem, self._definitions(), optional) if problem is not None else {}

    def fill_defaults(
        self, problem_id: str, params: Mapping[str, Any], *, optional: bool = False
    ) -> dict[str, Any]:
        """A copy of the body with each missing or null field set to its problem-file default (``optional``:
        the optional fields as well, for a body a form has not completed, such as an estimate's)."""
        return fill_defaults(params, self.body_defaults(problem_id, optional=optional))

    def extension_defaults(self, problem_id: str) -> dict[str, Any]:
        """The defaults ``job.extension`` declares for top-level extension fields (the brain tumor split)."""
        problem = self._problem(problem_id)
        if problem is None:
            return {}
        mappings = _body_mappings(problem.get("job", {}).get("extension"), self._definitions())
        return {
            mapping["to"].strip("/"): mapping["default"]
            for mapping in mappings
            if isinstance(mapping.get("to"), str) and mapping["to"].count("/") == 1 and "default" in mapping
        }


_NOT_FOUND = object()


def _default_of(schema: Any, definitions: Mapping[str, Any]) -> Any:
    """A property's default: its own, else its ``$ref``'s, else the first ``anyOf``/``oneOf`` branch's."""
    if not isinstance(schema, dict):
        return _NOT_FOUND
    if "default" in schema:
        return schema["default"]
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(DEFS_PREFIX):
        return _default_of(definitions.get(ref[len(DEFS_PREFIX) :]), definitions)
    for branch in [*schema.get("anyOf", []), *schema.get("oneOf", [])]:
        found = _default_of(branch, definitions)
        if found is not _NOT_FOUND:
            return found
    return _NOT_FOUND


def _subschemas(schema: Any, definitions: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The schema and every schema combined into it (``$ref``, ``allOf``, ``then``/``else`` branches)."""
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(DEFS_PREFIX):
        yield from _subschemas(definitions.get(ref[len(DEFS_PREFIX) :]), definitions)
    yield schema
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(key, []):
            yield from _subschemas(branch, definitions)
    for key in ("then", "else"):
        yield from _subschemas(schema.get(key), definitions)


def _form_field(forms: Mapping[str, Any], pointer: str, definitions: Mapping[str, Any]) -> Any:
    """The form field schema at a ``job.body`` mapping's ``from`` pointer (``/<form>/<field>/...``)."""
    form, *names = pointer.strip("/").split("/")
    schema = forms.get(form, {}).get("schema") if isinstance(forms.get(form), dict) else None
    for name in names:
        schema = next(
            (
                part["properties"][name]
                for part in _subschemas(schema, definitions)
                if isinstance(part.get("properties"), dict) and name in part["properties"]
            ),
            None,
        )
    return schema


def _body_mappings(mappings: Any, definitions: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    for mapping in mappings if isinstance(mappings, list) else []:
        ref = mapping.get("$ref") if isinstance(mapping, dict) else None
        if isinstance(ref, str) and ref.startswith(DEFS_PREFIX):
            yield from _body_mappings(definitions.get(ref[len(DEFS_PREFIX) :]), definitions)
        elif isinstance(mapping, dict):
            yield mapping


def problem_defaults(
    problem: Mapping[str, Any], definitions: Mapping[str, Any], optional: bool = False
) -> dict[str, Any]:
    """Top-level body field -> default, from ``job.bodySchema`` or the form field mapped onto it.

    A form field's default counts for a required body field only (an optional one left out means "not
    this model's", as the brain tumor body's quantum keys), unless ``optional``, and only when the mapping
    copies it unchanged (no ``transform``)."""
    job = problem.get("job", {})
    body_schema = job.get("bodySchema", {})
    properties = body_schema.get("properties", {})
    required = set(body_schema.get("required", []))
    from_form = {
        mapping["to"].strip("/"): mapping["from"]
        for mapping in _body_mappings(job.get("body"), definitions)
        if isinstance(mapping.get("to"), str)
        and isinstance(mapping.get("from"), str)
        and "transform" not in mapping
    }
    defaults: dict[str, Any] = {}
    for name, schema in properties.items():
        found = _default_of(schema, definitions)
        if found is _NOT_FOUND and (optional or name in required) and name in from_form:
            found = _default_of(
                _form_field(problem.get("forms", {}), from_form[name], definitions), definitions
            )
        if found is not _NOT_FOUND:
            defaults[name] = found
    return defaults


def schema_defaults(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Top-level property defaults of a self-contained schema (a worker kind's params schema)."""
    return {
        name: found
        for name, prop in schema.get("properties", {}).items()
        if (found := _default_of(prop, {})) is not _NOT_FOUND
    }


def fill_defaults(params: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``params`` in which every field that is missing, or null with a non-null default, takes
    its default: the one place a body's defaults are applied."""
    filled = copy.deepcopy(dict(params))
    for name, value in defaults.items():
        if name not in filled or (filled[name] is None and value is not None):
            filled[name] = copy.deepcopy(value)
    return filled
