"""The job-kind registry: kind -> handler module + params schema.

A worker kind (``self-test``) names its params schema under ``qmlstudio_worker/schemas/``. Adding a
problem (stock-price-prediction, fraud-detection, ...) is one handler module under
``qmlstudio_worker/handlers/`` and one entry here with ``params_schema_file=None``, the kind being the
problem id: its job body is validated against the problem file's own ``job.bodySchema``
(``problem_schemas``), never a copy. Handler modules are imported only when a job of their kind runs,
so validating a job stays cheap.
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


JOB_KINDS: dict[str, JobKind] = {
    job_kind.kind: job_kind
    for job_kind in (
        JobKind(
            kind="self-test",
            handler_module="qmlstudio_worker.jobs.self_test",
            params_schema_file="self-test.params.schema.json",
            description="Quantum self-test diagnostic: a 2-qubit Bell circuit on Qiskit Aer.",
        ),
        JobKind(
            kind="stock-price-prediction",
            handler_module="qmlstudio_worker.problems.stock_price_prediction.handler",
            params_schema_file=None,
            description="Next-day price forecasts: LSTM, GRU or RNN (PyTorch) or the hybrid quantum model.",
        ),
        JobKind(
            kind="demand-forecasting",
            handler_module="qmlstudio_worker.problems.demand_forecasting.handler",
            params_schema_file=None,
            description="Demand forecasts: LSTM (Classical) or the hybrid quantum model.",
        ),
        JobKind(
            kind="fraud-detection",
            handler_module="qmlstudio_worker.problems.fraud_detection.handler",
            params_schema_file=None,
            description="Fraud classifiers (scikit-learn) or the variational quantum classifier.",
        ),
        JobKind(
            kind="portfolio-optimization",
            handler_module="qmlstudio_worker.problems.portfolio_optimization.handler",
            params_schema_file=None,
            description="Mean-variance selection of budget stocks: exact (Classical), VQE or QAOA.",
        ),
        JobKind(
            kind="vehicle-routing",
            handler_module="qmlstudio_worker.problems.vehicle_routing.handler",
            params_schema_file=None,
            description="Delivery routes: exact enumeration (Classical) or QAOA / VQE on small instances.",
        ),
        JobKind(
            kind="brain-tumor",
            handler_module="qmlstudio_worker.problems.brain_tumor.handler",
            params_schema_file=None,
            description="Brain tumor MRI: DenseNet-121, FCN, 3D CNN; QCNN or QSVM simulated exactly.",
        ),
    )
}
