"""The job-kind registry: kind -> handler module + params schema.

Adding a problem (stock-price-prediction, fraud-detection, ...) is one handler module under
``qmlstudio_worker/handlers/``, one params schema under ``qmlstudio_worker/schemas/`` and one entry here.
Handler modules are imported only when a job of their kind runs, so validating a job stays cheap.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qmlstudio_worker.context import JobContext

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
    return json.loads(text)


@dataclass(frozen=True)
class JobKind:
    kind: str
    handler_module: str
    params_schema_file: str
    description: str

    @property
    def params_schema(self) -> dict[str, Any]:
        return load_schema(self.params_schema_file)

    def load_handler(self) -> Handler:
        module = importlib.import_module(self.handler_module)
        handler = getattr(module, "run", None)
        if not callable(handler):
            raise TypeError(f"handler module {self.handler_module} has no run(params, ctx) function")
        return handler


JOB_KINDS: dict[str, JobKind] = {
    job_kind.kind: job_kind
    for job_kind in (
        JobKind(
            kind="self-test",
            handler_module="qmlstudio_worker.handlers.self_test",
            params_schema_file="self-test.params.schema.json",
            description="Quantum self-test diagnostic: a 2-qubit Bell circuit on Qiskit Aer.",
        ),
    )
}
