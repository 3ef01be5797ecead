"""The "stock-price-prediction" job: next-day forecasts of the prediction feature (e.g. Close).

Body (``schemas/problems/stock-price-prediction.json`` job.bodySchema): ``training_model_method`` LSTM,
GRU or RNN trains that recurrent network (PyTorch) with ``hidden_layers`` units, ``epochs`` and
``learning_rate``; ``Quantum`` trains the hybrid quantum forecaster with ``qubits``. Rows
``from_index``..``to_index``, time-ordered split (``train_test_split`` = training share, nothing shuffled
across it), sliding windows of 10 rows, normalization and missing values from the envelope's extension
(fit on the training part only). One prediction feature: the body's ``prediction_features`` must name
exactly one column. Metrics next to the persistence baseline (tomorrow = today) on the same split;
charts: training and test loss per epoch, actual vs predicted, history.
"""

from __future__ import annotations

from typing import Any

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.forecasting import run_forecast_job

PROBLEM = "stock-price-prediction"
#: The model family a Quantum body runs: the hybrid quantum forecaster (the resource estimate builds it).
ESTIMATE_MODELS = {"Quantum": "Hybrid quantum neural network"}


def run(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    targets = [str(t) for t in params["prediction_features"]]
    if len(targets) != 1:
        raise JobValidationError(
            f"The model predicts one column; prediction_features names {len(targets)}: " + ", ".join(targets),
            "/params/prediction_features",
        )
    method = params["training_model_method"]
    if (method == "Quantum") != (params["training_model_type"] == "Quantum"):
        raise JobValidationError(
            f"Model type {params['training_model_type']} does not go with the method {method}.",
            "/params/training_model_method",
        )
    return run_forecast_job(
        params,
        ctx,
        problem=PROBLEM,
        method=method,
        training_features=params["training_features"],
        prediction_feature=targets[0],
        target_pointer="/params/prediction_features",
        seasonal=False,
    )
