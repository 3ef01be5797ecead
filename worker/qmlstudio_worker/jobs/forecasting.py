"""The forecasting job shared by stock price prediction and demand forecasting.

Reads the dataset from the envelope's extension, selects rows ``from_index``..``to_index`` (1-based,
inclusive), checks the columns the body names (refusing missing or non-numeric ones by field), then
trains either a classical recurrent network (LSTM, GRU or RNN:
:func:`~qmlstudio_worker.ml.recurrent.train_recurrent_forecaster`) or, for ``Quantum``, the hybrid
quantum forecaster of ``qmlstudio_worker.quantum.hybrid`` (imported only then). The split is
time-ordered, the imputer and normalizers are fitted on the training part only, and the metrics are
scored next to the naive baselines on the same test targets. The model, its scaler and ``model.json``
are saved in the output directory (:mod:`.artifacts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd  # type: ignore[import-untyped]

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.run_record import seed_everything
from qmlstudio_worker.jobs.support import (
    JobInputs,
    Stopwatch,
    base_result,
    data_errors,
    device_target,
    open_job_inputs,
    quantum_shots,
    require_fields,
    run_record,
    save_model,
)
from qmlstudio_worker.ml.forecast_metrics import baseline_label, baseline_verdict, comparison_chart
from qmlstudio_worker.ml.preprocess import numeric_features, select_rows
from qmlstudio_worker.ml.recurrent import DEFAULT_WINDOW, RECURRENT_MODELS, train_recurrent_forecaster
from qmlstudio_worker.quantum.run_facts import TEST_PREDICTIONS, quantum_run

#: The networks are small (one recurrent layer, windows of 10 rows, batches of 32): one intra-op thread
#: is much faster than several competing for shared cores (the stock example: 1.3 s with one thread,
#: 29 s with two on a loaded two-core machine), and the results do not depend on the machine's core count.
TORCH_THREADS = 1
#: Weekly data repeats yearly: 52 weeks.
WEEKLY_SEASON = 52
DATE_COLUMNS = ("Date", "date", "Datetime", "datetime", "timestamp")


def weekly_season_length(frame: pd.DataFrame) -> int | None:
    """52 when the rows are weekly (the median step between dates of the date column is 7 days), else
    None. The caller uses it only when the training part holds at least a season of rows."""
    for column in DATE_COLUMNS:
        if column in frame.columns:
            dates = pd.to_datetime(frame[column], errors="coerce")
            steps = dates.diff().dropna()
            if len(steps) and steps.median() == pd.Timedelta(days=7):
                return WEEKLY_SEASON
            return None
    return None


def _quantum_forecaster(**kwargs: Any) -> tuple[dict[str, Any], Any]:
    # Imported here: a classical run never pays for the quantum modules.
    from qmlstudio_worker.quantum import hybrid
    from qmlstudio_worker.quantum.noisy_density import NoisyDensityError

    try:
        result, fitted = hybrid.train_quantum_forecaster(**kwargs)
    except NoisyDensityError as exc:  # too many qubits for noisy training, or a circuit it cannot simulate
        raise JobValidationError(str(exc), "/params/qubits") from None
    return dict(result), fitted


def _selected_rows(params: Mapping[str, Any], inputs: JobInputs) -> pd.DataFrame:
    with data_errors("/params/to_index"):
        return select_rows(inputs.frame, params["from_index"], params["to_index"])


def _train(
    method: str, params: Mapping[str, Any], inputs: JobInputs, frame: pd.DataFrame, common: dict[str, Any]
) -> tuple[dict[str, Any], Any]:
    """Train the chosen forecaster on the selected rows: (result data, fitted model)."""
    with data_errors(None):
        if method == "Quantum":
            qubits = params.get("qubits")
            if qubits is None:
                raise JobValidationError("A Quantum model needs qubits.", "/params/qubits")
            # Under a noise model or on a device the hybrid QNN trains under that noise (quantum/hybrid.py);
            # its test predictions run on Aer with shots or on the device.
            noise = inputs.quantum_noise_model
            device = device_target(params, inputs)
            noisy = noise is not None or device is not None
            return _quantum_forecaster(
                frame=frame,
                qubits=int(qubits),
                hidden_layers=int(params["hidden_layers"]),
                noise_model=noise,
                device=device,
                shots=quantum_shots(params, noise, device_ok=True) if noisy else None,
                **common,
            )
        if method in RECURRENT_MODELS:
            return train_recurrent_forecaster(
                frame, model=method, hidden_layers=int(params["hidden_layers"]), **common
            )
        raise JobValidationError(f"Unknown model {method!r}.", "/params/training_model_method")


def _chosen_baseline(
    baselines: dict[str, Any], data: dict[str, Any], seasonal: bool, season: int | None, emit: Any
) -> dict[str, Any]:
    """Seasonal naive for a seasonal problem when its season fits the training part, else persistence
    (saying why in the log). When the forecaster's reference is aligned on Easter, that aligned seasonal
    naive: the table then sets the model beside the forecast it is a residual on, so the reference's gain
    over plain seasonal naive (still among the baselines) is not read as the model's."""
    if seasonal and "seasonal_naive_easter" in baselines:
        return {
            "name": f"{baseline_label('seasonal_naive_easter')} ({data.get('season_length') or season} rows)",
            "metrics": baselines["seasonal_naive_easter"],
        }
    if seasonal and "seasonal_naive" in baselines:
        return {
            "name": f"seasonal naive ({data.get('season_length') or season} rows)",
            "metrics": baselines["seasonal_naive"],
        }
    if seasonal:
        why = (
            "the rows are not weekly" if season is None else f"the training part has fewer than {season} rows"
        )
        emit.log(f"seasonal-naive baseline not used: {why}; the baseline is persistence")
    return {"name": "persistence (tomorrow = today)", "metrics": baselines.get("persistence", {})}


def _report_against_baseline(
    emit: Any, model_name: str, metrics: dict[str, Any], baseline: dict[str, Any], baselines: dict[str, Any]
) -> dict[str, Any] | None:
    """Log the test RMSE beside the baseline's and the one-sentence verdict; return the verdict."""
    model_rmse, base_rmse = metrics.get("rmse"), baseline["metrics"].get("rmse")
    if model_rmse is not None and base_rmse is not None:
        emit.log(f"{model_name}: test RMSE {model_rmse:.6g} vs {baseline['name']} RMSE {base_rmse:.6g}")
    verdict = baseline_verdict(model_name, metrics, baselines)
    if verdict is not None:
        emit.log(verdict["sentence"], level="info" if verdict["beats"] else "warning")
    return verdict


def _prepared_frame(
    params: Mapping[str, Any],
    inputs: JobInputs,
    features: list[str],
    prediction_feature: str,
    target_pointer: str,
) -> pd.DataFrame:
    """The selected rows, their features and target checked numeric (refusals naming the field)."""
    require_fields(inputs.frame, features, "/params/training_features")
    require_fields(inputs.frame, [prediction_feature], target_pointer)
    frame = _selected_rows(params, inputs)
    with data_errors("/params/training_features"):
        numeric_features(frame, features)
    with data_errors(target_pointer):
        numeric_features(frame, [prediction_feature])
    return frame


def run_forecast_job(
    params: Mapping[str, Any],
    ctx: JobContext,
    *,
    problem: str,
    method: str,
    training_features: Sequence[str],
    prediction_feature: str,
    target_pointer: str,
    seasonal: bool,
) -> dict[str, Any]:
    """Train and score one forecaster; ``method`` is LSTM, GRU, RNN or Quantum."""
    emit = ctx.emitter
    clock = Stopwatch()
    inputs = open_job_inputs(params, ctx, "dataset")
    features = [str(f) for f in training_features]
    frame = _prepared_frame(params, inputs, features, prediction_feature, target_pointer)
    season = weekly_season_length(frame) if seasonal else None
    emit.log(
        f"{problem}: {inputs.label}, rows {params['from_index']}..{params['to_index']} "
        f"({len(frame)} rows), features {', '.join(features)} -> {prediction_feature}; "
        f"normalization {inputs.normalization}, missing values {inputs.missing_values}, seed {inputs.seed}"
    )
    seed_everything(inputs.seed, torch=True)
    common: dict[str, Any] = {
        "training_features": features,
        "prediction_feature": prediction_feature,
        "train_share": float(params["train_test_split"]),
        "epochs": int(params["epochs"]),
        "learning_rate": float(params["learning_rate"]),
        "normalization": inputs.normalization,
        "missing_values": inputs.missing_values,
        "seed": inputs.seed,
        "season_length": season,
        "torch_threads": TORCH_THREADS,
        "emit": emit,
    }
    quantum = method == "Quantum"
    trained, fitted = _train(method, params, inputs, frame, common)
    baselines: dict[str, Any] = dict(trained.get("baselines") or {})
    data: dict[str, Any] = dict(trained.get("data") or {})
    baseline = _chosen_baseline(baselines, data, seasonal, season, emit)
    model_name = str(trained.get("model") or method)
    comparison = comparison_chart({model_name: trained.get("metrics") or {}, **baselines})
    comparison["series"] = [
        {"name": baseline_label(s["name"]), "data": s["data"]} for s in comparison["series"]
    ]
    emit.chart_spec(comparison)
    result = base_result(
        problem=problem,
        model=model_name,
        model_type="Quantum" if quantum else "Classical",
        metrics=trained.get("metrics") or {},
        baseline={"name": baseline["name"], "metrics": dict(baseline["metrics"])},
        charts=[*(trained.get("charts") or []), comparison],
    )
    loss = trained.get("loss") or {}
    result["losses"] = {"train": list(loss.get("train", [])), "test": list(loss.get("test", []))}
    result["baselines"] = baselines
    actual = [float(v) for v in data.pop("actual", [])]
    predicted = [float(v) for v in data.pop("predicted", [])]
    result["prediction"] = {"actual": actual, "predicted": predicted, "feature": prediction_feature}
    rows_used = int(data.get("train_rows", 0)) + int(data.get("test_rows", 0)) or len(frame)
    result["training_data"] = {
        **data,
        "window": data.get("window", DEFAULT_WINDOW),
        "training_features": features,
        "prediction_feature": prediction_feature,
        "from_index": params["from_index"],
        "to_index": params["to_index"],
    }
    if quantum:  # where the circuits ran: exactly, or trained under noise and tested on Aer or a device
        result["quantum_run"] = quantum_run(trained, TEST_PREDICTIONS)
    emit.progress(96, "saving the model")
    result["artifacts"], result["trained_model_path"] = save_model(ctx, fitted, problem)
    result["dataset"] = inputs.dataset_summary(rows_used)
    result["run_record"] = run_record(
        params,
        inputs,
        {"model": model_name, "method": method, "season_length": data.get("season_length")},
    )
    result["seed"] = inputs.seed
    result["duration_seconds"] = clock.seconds()
    result["baseline_verdict"] = _report_against_baseline(
        emit, model_name, result["metrics"], baseline, baselines
    )
    emit.progress(100, "done")
    return result
