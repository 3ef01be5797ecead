"""The "demand-forecasting" job: next-step forecasts of the demand series' ``prediction_feature``.

Body (``schemas/problems/demand-forecasting.json`` job.bodySchema): ``training_model_type`` Classical
trains an LSTM (the demand body names no method; the LSTM is the classical family's default, as in
stock price prediction) with ``hidden_layers`` units, ``epochs`` and ``learning_rate``; Quantum trains the
hybrid quantum forecaster with ``qubits``. Rows ``from_index``..``to_index``, time-ordered split with
``train_test_split`` as the training share, sliding windows of 10 rows, normalization and missing values
from the envelope's extension (fit on the training part only).

Baseline: seasonal naive (the value one season earlier) with a season of 52 rows when the rows are weekly
(the median step of the Date column is 7 days) and the training part holds at least 52 rows; otherwise
persistence (tomorrow = today), said so in the log. When the training part shows Easter's weeks moving
with Easter, the forecaster's reference is aligned on it and shown as one more baseline, seasonal naive
aligned on Easter (``ml/forecast_inputs.py``); the verdict compares the model with the best baseline.
The metrics (MSE, RMSE, MAE, MAPE, R2, direction accuracy) of the model and of every baseline are on the
same test targets.
"""

from __future__ import annotations

from typing import Any

from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.forecasting import run_forecast_job

PROBLEM = "demand-forecasting"
#: The model family a Quantum body runs: the hybrid quantum forecaster (the resource estimate builds it).
ESTIMATE_MODELS = {"Quantum": "Hybrid quantum neural network"}
CLASSICAL_METHOD = "LSTM"


def run(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    method = "Quantum" if params["training_model_type"] == "Quantum" else CLASSICAL_METHOD
    return run_forecast_job(
        params,
        ctx,
        problem=PROBLEM,
        method=method,
        training_features=params["training_features"],
        prediction_feature=params["prediction_feature"],
        target_pointer="/params/prediction_feature",
        seasonal=True,
    )
