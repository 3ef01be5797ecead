"""Step-by-step forecasts of a saved forecaster: ``python -m qmlstudio_worker forecast``.

Input (JSON on stdin): ``{"model_dir": str, "dataset": {"path": str}, "steps": int}``
- ``model_dir``: a completed forecasting run's output directory (``model.json`` and the model's files);
- ``dataset.path``: the daily series the model continues (a CSV with Date and the target, by date); the
  forecast days are the weekdays after its last date;
- ``steps``: how many next values to forecast (1 to 5000).

Each step forecasts the next value from the last ``window`` rows, then appends it as the newest row and
forecasts again, so a multi-day horizon is predicted step by step from the model's own forecasts. The model
must forecast its only feature (training features = [prediction feature]): otherwise the other features'
future values would be unknown.

Output: one protocol line. ``result`` with ``{"dates": [str, ...], "predicted": [float, ...], "last_actual":
float, "window": int, "model": str}`` (one trading day and forecast per step, in order), or ``error`` of
kind "validation" naming the field. Exit codes as ``infer``.
"""

from __future__ import annotations

import json
import math
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.file_store import local_output
from qmlstudio_worker.protocol import Emitter

MAX_STEPS = 5000


def parse_request(text: str) -> tuple[Path, Path, int]:
    try:
        request = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JobValidationError(f"the forecast request is not valid JSON: {exc.msg}") from None
    if not isinstance(request, dict):
        raise JobValidationError("request: must be an object")
    model_dir = request.get("model_dir")
    if not isinstance(model_dir, str) or not model_dir:
        raise JobValidationError("/model_dir: is required", "/model_dir")
    dataset = request.get("dataset")
    path = dataset.get("path") if isinstance(dataset, dict) else None
    if not isinstance(path, str) or not path:
        raise JobValidationError("/dataset/path: is required", "/dataset/path")
    steps = request.get("steps")
    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_STEPS:
        raise JobValidationError(f"/steps: must be an integer from 1 to {MAX_STEPS}", "/steps")
    return Path(model_dir), Path(path), steps


#: History rows each step reads besides its window: room for a seasonal reference (up to 52 rows back).
SEASON_ROOM = 64


def next_trading_day(day: str) -> str:
    """The weekday after ``day`` (YYYY-MM-DD): daily prices continue Monday to Friday."""
    current = date.fromisoformat(day) + timedelta(days=1)
    while current.weekday() >= 5:
        current += timedelta(days=1)
    return current.isoformat()


def roll_forward(fitted: Any, history: Any, steps: int) -> tuple[list[str], list[float]]:
    """(dates, forecasts) of ``steps`` trading days after the history's last row: each step forecasts the
    next day from the rows before it, the earlier forecasts appended as rows (with their dates, which the
    model's calendar inputs read)."""
    import pandas as pd  # type: ignore[import-untyped]

    target = fitted.prediction_feature
    window = int(fitted.window)
    if len(history) < window:
        raise JobValidationError(
            f"The series needs at least {window} rows, it has {len(history)}", "/dataset/path"
        )
    keep = window + SEASON_ROOM
    tail = history.tail(keep)
    days = [pd.Timestamp(d).date().isoformat() for d in tail["Date"]]
    values = [float(v) for v in tail[target]]
    out_days: list[str] = []
    predicted: list[float] = []
    for _ in range(steps):
        day = next_trading_day(days[-1])
        # the rows before it, plus the row to forecast (its value is never read)
        frame = pd.DataFrame({"Date": [*days[-keep:], day], target: [*values[-keep:], values[-1]]})
        step = float(fitted.predict(frame)[-1])
        if not math.isfinite(step):
            raise RuntimeError("the model produced a value that is not a number")
        days.append(day)
        values.append(step)
        out_days.append(day)
        predicted.append(step)
    return out_days, predicted


def forecast(text: str) -> dict[str, Any]:
    model_dir, dataset_path, steps = parse_request(text)
    # The demo's model may have been trained on another machine: its folder comes from the file store.
    model_dir = local_output(model_dir, "/model_dir")
    if not (model_dir / "model.json").is_file():
        raise JobValidationError("No trained model: this output has no saved model", "/model_dir")
    if not dataset_path.is_file():
        raise JobValidationError("The dataset file cannot be found", "/dataset/path")
    from qmlstudio_worker.ml.artifacts import load_fitted, read_model_card
    from qmlstudio_worker.ml.datasets import DatasetError, load_csv

    description = read_model_card(model_dir)
    import torch

    torch.set_num_threads(1)  # one step is a tiny forward pass: threads only add overhead
    predictor: Any = load_fitted(model_dir)
    fitted = predictor.fitted
    if list(fitted.training_features) != [fitted.prediction_feature]:
        raise JobValidationError(
            "A step-by-step forecast needs a model trained on its prediction feature alone "
            f"(this one uses {', '.join(fitted.training_features)})",
            "/model_dir",
        )
    try:
        frame = load_csv(dataset_path).frame
    except DatasetError as exc:
        raise JobValidationError(exc.message, "/dataset/path") from None
    if "Date" not in frame.columns:
        raise JobValidationError("The series needs a Date column (YYYY-MM-DD)", "/dataset/path")
    series = frame[["Date", fitted.prediction_feature]].dropna().reset_index(drop=True)
    dates, predicted = roll_forward(fitted, series, steps)
    return {
        "dates": dates,
        "predicted": predicted,
        "last_actual": float(series[fitted.prediction_feature].iloc[-1]),
        "window": int(fitted.window),
        "model": description.get("model"),
    }


def run_forecast(text: str, emitter: Emitter) -> int:
    from qmlstudio_worker.jobs.runner import report_outcome

    return report_outcome(lambda: forecast(text), emitter)
