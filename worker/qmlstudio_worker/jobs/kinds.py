"""Job kinds: kind -> handler module + params schema.

A worker kind (``self-test``) names its params schema under ``qmlstudio_worker/schemas/``. A problem's
kind is its problem file: the job body is validated against the file's own ``job.bodySchema``
(``problem_schemas``, never a copy) and runs ``qmlstudio_worker.problems.<worker>.handler``, ``worker``
being the file's ``job.worker`` or else its id (dashes as underscores). Adding a problem is its file and,
when no existing handler fits, one package under ``problems/``; nothing here lists problems. Handler
modules are imported only when a job of their kind runs, so validating a job stays cheap.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from qmlstudio_worker.problem_schemas import ProblemSchemas

if TYPE_CHECKING:
    from qmlstudio_worker.jobs.context import JobContext

Handler = Callable[[dict[str, Any], "JobContext"], dict[str, Any]]


@cache
def load_schema(file_name: str) -> dict[str, Any]:
    """A JSON schema shipped in ``qmlstudio_worker/schemas``."""
    text = (
        resources.files("qmlstudio_worker")
        .joinpath("schemas")
        .joinpath(file_name)
        .read_text(encoding="utf-8")
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


@dataclass(frozen=True)
class JobKind:
    kind: str
    handler_module: str
    # None: the kind is a problem id and its body schema is the problem file's job.bodySchema.
    params_schema_file: str | None
    description: str

    @property
    def params_schema(self) -> dict[str, Any]:
        if self.params_schema_file is None:
            raise LookupError(f"{self.kind!r} takes its body schema from schemas/problems/{self.kind}.json")
        return load_schema(self.params_schema_file)

    def load_handler(self) -> Handler:
        module = importlib.import_module(self.handler_module)
        handler: Handler | None = getattr(module, "run", None)
        if not callable(handler):
            raise TypeError(f"handler module {self.handler_module} has no run(params, ctx) function")
        return handler


# The worker's own kinds; a problem's kind comes from its problem file (:func:`problem_kind`).
JOB_KINDS: dict[str, JobKind] = {
    "self-test": JobKind(
        kind="self-test",
        handler_module="qmlstudio_worker.jobs.self_test",
        params_schema_file="self-test.params.schema.json",
        description="Quantum self-test diagnostic: a 2-qubit Bell circuit on Qiskit Aer.",
    )
}
PROBLEMS_PACKAGE = "qmlstudio_worker.problems"


def handler_module(worker: str) -> str:
    """The module running the jobs of a problem whose file names ``worker`` (its id unless it says)."""
    return f"{PROBLEMS_PACKAGE}.{worker.replace('-', '_')}.handler"


def module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def problem_kind(problem_id: str, problems: ProblemSchemas) -> JobKind | None:
    """The job kind of a problem file, dispatched on what the file declares (``job.worker``, else its id),
    never on a table of problem ids: a renamed copy of a problem file runs with that problem's handler.
    None when there is no such file or its handler module does not exist."""
    declared = problems.declaration(problem_id)
    if declared is None or not module_exists(handler_module(declared.worker)):
        return None
    return JobKind(problem_id, handler_module(declared.worker), None, declared.name)
