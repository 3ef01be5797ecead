"""Inference with a trained model: ``python -m qmlstudio_worker infer``.

Input (JSON on stdin):
``{"problem": str, "model_dir": str, "dataset": {"path": str}, "features": [str, ...]}``
- ``model_dir``: the output directory of a completed run (``DATA_DIR/outputs/{id}``) holding ``model.json``
  and the model's files, as ``ml/artifacts.save_fitted`` wrote them;
- ``dataset.path``: the CSV to apply the model to (the server resolves it: a sample, an upload, a URL);
- ``features``: the columns the user selected; they must be columns of the CSV and exactly the features the
  model was trained on (a feature the model does not use would do nothing, so it is refused too).

Output: one protocol line. ``result`` with data ``{"actual": [...], "predicted": [...], "rows": int}``
(``rows``: the CSV's data rows; ``actual`` and ``predicted`` pair up, one per predicted row; a value that is
not a finite number, such as an empty cell of the target column, is null) and exit code 0; or ``error`` of
kind "validation" naming the field (``/features``, ``/dataset/path``, ``/model_dir``, ``/problem``) and exit
code 2; or kind "runtime" and exit code 1. The same exit codes as ``run``.

Only what the model needs is imported: pandas for the CSV, then ``load_fitted`` imports torch or
scikit-learn according to the model's framework.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.file_store import local_input, local_output
from qmlstudio_worker.protocol import Emitter

#: Largest CSV accepted for inference: the upload limit (UPLOAD_MAX_BYTES' default, 100 MB).
MAX_INFERENCE_BYTES = 100 * 1024 * 1024
MODEL_FILE = "model.json"
_MAX_NAMES_LISTED = 20


def _names(names: Iterable[str]) -> str:
    listed = list(names)
    shown = ", ".join(listed[:_MAX_NAMES_LISTED])
    return shown + (f" and {len(listed) - _MAX_NAMES_LISTED} more" if len(listed) > _MAX_NAMES_LISTED else "")


def _object(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise JobValidationError(f"{field or 'request'}: must be an object", field or None)
    return value


def _text(request: dict[str, Any], name: str, base: str = "") -> str:
    field = f"{base}/{name}"
    value = request.get(name)
    if value is None:
        raise JobValidationError(f"{field}: is required", field)
    if not isinstance(value, str) or not value.strip():
        raise JobValidationError(f"{field}: must be a non-empty string", field)
    return value


def parse_request(text: str) -> tuple[str, Path, Path, list[str]]:
    """The request's problem, model directory, dataset path and features (trimmed, in order, unique)."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JobValidationError(f"the inference request is not valid JSON: {exc.msg}") from None
    request = _object(raw, "")
    known = {"problem", "model_dir", "dataset", "features"}
    extra = sorted(name for name in request if name not in known)
    if extra:
        raise JobValidationError(
            f"/{extra[0]}: unknown field (allowed: {', '.join(sorted(known))})", f"/{extra[0]}"
        )
    problem = _text(request, "problem")
    model_dir = Path(_text(request, "model_dir"))
    if "dataset" not in request:
        raise JobValidationError("/dataset: is required", "/dataset")
    dataset = _object(request["dataset"], "/dataset")
    dataset_path = Path(_text(dataset, "path", "/dataset"))
    features = request.get("features")
    if features is None:
        raise JobValidationError("/features: is required", "/features")
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise JobValidationError("/features: must be a list of column names", "/features")
    cleaned: list[str] = []
    for feature in features:
        name = feature.replace("\r", "").strip()
        if name and name not in cleaned:
            cleaned.append(name)
    if not cleaned:
        raise JobValidationError("Please select a feature", "/features")
    return problem, model_dir, dataset_path, cleaned


def read_model_description(model_dir: Path, problem: str) -> dict[str, Any]:
    """model.json of the output, checked to be a model of ``problem``."""
    path = model_dir / MODEL_FILE
    if not path.is_file():
        raise JobValidationError("No trained model: this output has no saved model", "/model_dir")
    try:
        description = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RuntimeError(f"the model description {MODEL_FILE} cannot be read: {exc}") from None
    if not isinstance(description, dict):
        raise RuntimeError(f"the model description {MODEL_FILE} is not a JSON object")
    trained_for = description.get("problem")
    if trained_for is not None and trained_for != problem:
        raise JobValidationError(f"This model was trained for {trained_for}, not for {problem}", "/problem")
    return description


def check_columns(requested: Sequence[str], csv_columns: Sequence[str]) -> None:
    """Refuse, naming them, requested features the CSV does not have."""
    present = set(csv_columns)
    absent = [name for name in requested if name not in present]
    if absent:
        raise JobValidationError(
            f"Missing features: {_names(absent)} (the CSV's columns are {_names(csv_columns)})", "/features"
        )


def check_model_features(requested: Sequence[str], model_features: Sequence[str]) -> None:
    """Refuse, naming them, the model's features left out and requested features the model does not use."""
    chosen = set(requested)
    left_out = [name for name in model_features if name not in chosen]
    if left_out:
        raise JobValidationError(
            f"Missing features: {_names(left_out)} (the model was trained on {_names(model_features)}; "
            "select each of them)",
            "/features",
        )
    used = set(model_features)
    unused = [name for name in requested if name not in used]
    if unused:
        raise JobValidationError(
            f"The model does not use the features {_names(unused)} "
            f"(it was trained on {_names(model_features)})",
            "/features",
        )


def _plain_numbers(values: Iterable[Any]) -> list[float | int | None]:
    """JSON numbers; NaN, infinities and empty values become null (JSON has no NaN)."""
    plain: list[float | int | None] = []
    for value in values:
        if hasattr(value, "item"):
            value = value.item()
        if isinstance(value, bool):
            plain.append(int(value))
        elif isinstance(value, int):
            plain.append(value)
        elif isinstance(value, float):
            plain.append(value if math.isfinite(value) else None)
        elif value is None:
            plain.append(None)
        else:
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise RuntimeError(f"the model produced a value that is not a number: {value!r}") from None
            plain.append(number if math.isfinite(number) else None)
    return plain


def infer(text: str) -> dict[str, Any]:
    """Run one inference request (its JSON text); return the result data or raise JobValidationError."""
    problem, model_dir, dataset_path, features = parse_request(text)
    # A model trained and a dataset uploaded on other machines come from the file store first.
    model_dir = local_output(model_dir, "/model_dir")
    dataset_path = local_input({**json.loads(text)["dataset"], "path": str(dataset_path)}, "/dataset/path")
    read_model_description(model_dir, problem)
    if not dataset_path.is_file():
        raise JobValidationError("The dataset file cannot be found", "/dataset/path")

    from qmlstudio_worker.ml.datasets import DatasetError, load_csv

    try:
        loaded = load_csv(dataset_path, max_bytes=MAX_INFERENCE_BYTES)
    except DatasetError as exc:
        raise JobValidationError(exc.message, "/dataset/path") from None
    frame = loaded.frame
    check_columns(features, [str(c) for c in frame.columns])  # before the model is loaded: cheap

    from qmlstudio_worker.ml.artifacts import load_fitted

    predictor = load_fitted(model_dir)
    check_model_features(features, list(predictor.features))
    try:
        actual, predicted = predictor.predict_frame(frame)
    except DatasetError as exc:
        raise JobValidationError(exc.message, "/dataset/path") from None
    except ValueError as exc:  # too few rows for the window, empty cells with remove_rows, ...
        message = f"The model cannot be applied to this data: {exc}"
        raise JobValidationError(message, "/dataset/path") from None
    return {
        "actual": _plain_numbers(actual),
        "predicted": _plain_numbers(predicted),
        "rows": loaded.facts.rows,
    }


def run_inference(text: str, emitter: Emitter) -> int:
    """One inference request in, one ``result`` or ``error`` line out; the exit code back (as ``run_job``)."""
    from qmlstudio_worker.jobs.runner import report_outcome

    return report_outcome(lambda: infer(text), emitter)
