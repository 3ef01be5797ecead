"""Saving a trained model with its preprocessing, and loading it back for inference.

``save_fitted(output_dir, fitted)`` writes the model's files into the job's output directory and returns
``{artifact name: file name relative to output_dir}``; ``load_fitted(model_dir)`` reads them back as a
:class:`Predictor` (``features``, ``target``, ``predict_frame(frame) -> (actual, predicted)``).

Every saved model has ``model.json`` describing it::

    {"format_version": 1, "problem", "framework", "model", "features", "target", "window",
     "normalization", "missing_values", "architecture", "files": {...}}

and is loaded according to its ``framework``:

- ``torch``: a classical recurrent forecaster (:class:`~qmlstudio_worker.ml.recurrent.FittedForecaster`).
  ``model.pt`` holds the network's ``state_dict`` (loaded with ``torch.load(weights_only=True)``, so no
  pickled code runs), ``architecture`` the network's shape, ``scaler.json`` the imputer and normalizers.
  Format 2 adds ``scaler.json``'s ``target_mode`` ("change": the network predicts the change from the
  previous value, see :mod:`~qmlstudio_worker.ml.recurrent`); a format 1 model has none and predicts levels.
- ``sklearn``: a fraud detector (:class:`.classification.FittedClassifier`). ``model.joblib``
  holds the estimator, ``scaler.json`` the imputer, the normalizer and the labels.
- the quantum models (``torch-quantum``: ``qmlstudio_worker.quantum.hybrid``; ``qiskit``:
  ``quantum.variational_classifier``; see :data:`QUANTUM_FRAMEWORKS`): their module saves and loads them.
  A fitted object whose class is defined in a ``qmlstudio_worker.quantum`` module is saved by that
  module's ``save(output_dir, fitted, problem) -> dict[str, str]`` (which writes ``model.json`` with its
  ``framework``), and loaded by the framework's module's ``load(model_dir) -> Predictor``. A
  ``model.json`` may also name its loader as ``"loader": "qmlstudio_worker.<module>:<function>"``.

Files are written only inside ``output_dir``; the JSON files are plain (no NaN).
"""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd  # type: ignore[import-untyped]

from qmlstudio_worker.ml.datasets import DatasetError
from qmlstudio_worker.ml.datasets import require_columns as require_dataset_columns
from qmlstudio_worker.ml.preprocess import MinMaxNormalizer, MissingValueImputer, numeric_features

FORMAT_VERSION = 1
#: A torch forecaster's model.json: 2 since scaler.json holds ``target_mode`` (format 1 still loads).
TORCH_FORMAT_VERSION = 2
MODEL_FILE = "model.json"
SCALER_FILE = "scaler.json"
TORCH_WEIGHTS_FILE = "model.pt"
SKLEARN_MODEL_FILE = "model.joblib"
#: Artifact media types, by file suffix.
#: model.json framework -> the module whose ``load(model_dir)`` reads it.
QUANTUM_FRAMEWORKS = {
    "torch-quantum": "qmlstudio_worker.quantum.hybrid",
    "qiskit": "qmlstudio_worker.quantum.variational_classifier",
    "qiskit-kernel": "qmlstudio_worker.quantum.kernel_classifier",
}
MEDIA_TYPES = {
    ".json": "application/json",
    ".pt": "application/octet-stream",
    ".joblib": "application/octet-stream",
}


@runtime_checkable
class Predictor(Protocol):
    """A loaded model: the columns it reads and the one it predicts."""

    features: list[str]
    target: str

    def predict_frame(self, frame: pd.DataFrame) -> tuple[list[float], list[float]]:
        """(actual, predicted) for the rows of ``frame`` the model can score; raises DatasetError naming
        the columns ``frame`` lacks."""
        ...


def media_type(file_name: str) -> str:
    return MEDIA_TYPES.get(Path(file_name).suffix, "application/octet-stream")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2, allow_nan=False) + "\n", encoding="utf-8")


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"no saved model: {path} does not exist") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a JSON object")
    return data


def _plain_label(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def _without_empty_target(frame: pd.DataFrame, target: str) -> pd.DataFrame:
    """Rows whose target cell is empty have no actual value to report: they are left out."""
    return frame.loc[frame[target].notna()].reset_index(drop=True)


# --- torch: recurrent forecasters -------------------------------------------------------------------


class ForecastPredictor:
    """A loaded recurrent forecaster: forecasts of ``target`` for every row after the first ``window``."""

    def __init__(self, fitted: Any) -> None:
        self.fitted = fitted
        self.features: list[str] = list(fitted.training_features)
        self.target: str = fitted.prediction_feature

    def predict_frame(self, frame: pd.DataFrame) -> tuple[list[float], list[float]]:
        require_dataset_columns(frame, [*self.features, self.target])
        rows = _without_empty_target(frame, self.target)
        if self.fitted.imputer is None:  # trained with remove_rows: drop incomplete rows here too
            rows = rows.dropna(subset=list(dict.fromkeys([*self.features, self.target]))).reset_index(
                drop=True
            )
        try:
            actual = numeric_features(rows, [self.target])[self.target].to_numpy(dtype="float64")
            predicted = self.fitted.predict(rows)
        except DatasetError:
            raise
        except ValueError as exc:
            raise DatasetError(str(exc)[:1].upper() + str(exc)[1:] + ".") from None
        return [float(v) for v in actual[self.fitted.first_target :]], [float(v) for v in predicted]


def _save_torch(output_dir: Path, fitted: Any, problem: str | None) -> dict[str, str]:
    import torch

    torch.save(fitted.network.state_dict(), output_dir / TORCH_WEIGHTS_FILE)
    scaler = fitted.to_dict()
    _write_json(output_dir / SCALER_FILE, scaler)
    meta = {
        "format_version": TORCH_FORMAT_VERSION,
        "problem": problem,
        "framework": "torch",
        "model": fitted.model,
        "features": list(fitted.training_features),
        "target": fitted.prediction_feature,
        "window": fitted.window,
        "normalization": fitted.feature_normalizer.normalization,
        "missing_values": fitted.imputer.strategy if fitted.imputer is not None else "remove_rows",
        "architecture": {
            "kind": "recurrent",
            "cell": fitted.model,
            "input_size": fitted.inputs.width if fitted.inputs is not None else len(fitted.training_features),
            "hidden_size": fitted.hidden_layers,
            "num_layers": 1,
            "head": "linear on the last time step",
        },
        "files": {"weights": TORCH_WEIGHTS_FILE, "scaler": SCALER_FILE},
    }
    _write_json(output_dir / MODEL_FILE, meta)
    return {"model": TORCH_WEIGHTS_FILE, "scaler": SCALER_FILE, "model_card": MODEL_FILE}


def _load_torch(model_dir: Path, meta: dict[str, Any]) -> Predictor:
    import torch

    from qmlstudio_worker.ml.forecast_inputs import ForecastInputs
    from qmlstudio_worker.ml.recurrent import FittedForecaster, build_network

    scaler = _read_json(model_dir / meta.get("files", {}).get("scaler", SCALER_FILE))
    arch = meta["architecture"]
    network = build_network(arch["cell"], int(arch["input_size"]), int(arch["hidden_size"]))
    weights = model_dir / meta.get("files", {}).get("weights", TORCH_WEIGHTS_FILE)
    network.load_state_dict(torch.load(weights, weights_only=True))
    network.eval()
    fitted = FittedForecaster(
        model=meta["model"],
        network=network,
        training_features=list(scaler["training_features"]),
        prediction_feature=scaler["prediction_feature"],
        window=int(scaler["window"]),
        hidden_layers=int(scaler["hidden_layers"]),
        feature_normalizer=MinMaxNormalizer.from_dict(scaler["feature_normalizer"]),
        target_normalizer=MinMaxNormalizer.from_dict(scaler["target_normalizer"]),
        imputer=MissingValueImputer.from_dict(scaler["imputer"]) if scaler.get("imputer") else None,
        target_mode=str(scaler.get("target_mode", "level")),  # format 1: levels
        inputs=ForecastInputs.from_dict(scaler["inputs"]) if scaler.get("inputs") else None,
    )
    return ForecastPredictor(fitted)


# --- sklearn: fraud detectors -----------------------------------------------------------------------


class ClassifierPredictor:
    """A loaded fraud detector: actual and predicted as 1.0 (the positive, fraud class) or 0.0."""

    def __init__(
        self,
        estimator: Any,
        features: list[str],
        target: str,
        positive: Any,
        normalizer: MinMaxNormalizer,
        imputer: MissingValueImputer | None,
        threshold: float | None = None,
    ) -> None:
        self.threshold = threshold
        self.estimator = estimator
        self.features = features
        self.target = target
        self.positive = positive
        self.normalizer = normalizer
        self.imputer = imputer

    def predict_labels(self, frame: pd.DataFrame) -> np.ndarray[Any, Any]:
        require_dataset_columns(frame, self.features)
        try:
            x = numeric_features(frame, self.features)
        except ValueError as exc:
            raise DatasetError(str(exc)[:1].upper() + str(exc)[1:] + ".") from None
        if self.imputer is not None:
            x = self.imputer.transform(x)
        elif x.isna().to_numpy().any():
            raise DatasetError("Some rows have empty cells and the model was trained with 'remove rows'.")
        from qmlstudio_worker.ml.classification import predict_at_threshold

        return predict_at_threshold(
            self.estimator, self.normalizer.transform(x), self.positive, self.threshold
        )

    def predict_frame(self, frame: pd.DataFrame) -> tuple[list[float], list[float]]:
        require_dataset_columns(frame, [*self.features, self.target])
        rows = _without_empty_target(frame, self.target)
        if self.imputer is None:
            rows = rows.dropna(subset=self.features).reset_index(drop=True)
        predicted = self.predict_labels(rows)
        actual = rows[self.target].to_numpy()
        return (
            [1.0 if v == self.positive else 0.0 for v in actual],
            [1.0 if v == self.positive else 0.0 for v in predicted],
        )


def _save_sklearn(output_dir: Path, fitted: Any, problem: str | None) -> dict[str, str]:
    import joblib  # type: ignore[import-untyped]

    prepared = fitted.prepared
    joblib.dump(fitted.estimator, output_dir / SKLEARN_MODEL_FILE)
    target = getattr(fitted, "target", None) or "Class"
    classes = [_plain_label(c) for c in getattr(fitted.estimator, "classes_", [])]
    scaler = {
        "features": list(prepared.features),
        "target": target,
        "positive": _plain_label(fitted.positive),
        "classes": classes,
        "normalizer": prepared.normalizer.to_dict(),
        "imputer": prepared.imputer.to_dict() if prepared.imputer is not None else None,
        "threshold": getattr(fitted, "threshold", None),  # chosen on validation rows (None: the estimator's)
    }
    _write_json(output_dir / SCALER_FILE, scaler)
    meta = {
        "format_version": FORMAT_VERSION,
        "problem": problem,
        "framework": "sklearn",
        "model": fitted.model_name,
        "features": list(prepared.features),
        "target": target,
        "window": None,
        "normalization": prepared.normalizer.normalization,
        "missing_values": prepared.imputer.strategy if prepared.imputer is not None else "remove_rows",
        "architecture": {
            "estimator": type(fitted.estimator).__name__,
            "positive_class": _plain_label(fitted.positive),
            "classes": classes,
        },
        "files": {"estimator": SKLEARN_MODEL_FILE, "scaler": SCALER_FILE},
    }
    _write_json(output_dir / MODEL_FILE, meta)
    return {"model": SKLEARN_MODEL_FILE, "scaler": SCALER_FILE, "model_card": MODEL_FILE}


def _load_sklearn(model_dir: Path, meta: dict[str, Any]) -> Predictor:
    import joblib

    scaler = _read_json(model_dir / meta.get("files", {}).get("scaler", SCALER_FILE))
    estimator = joblib.load(model_dir / meta.get("files", {}).get("estimator", SKLEARN_MODEL_FILE))
    return ClassifierPredictor(
        estimator=estimator,
        features=list(scaler["features"]),
        target=str(scaler["target"]),
        positive=scaler["positive"],
        normalizer=MinMaxNormalizer.from_dict(scaler["normalizer"]),
        imputer=MissingValueImputer.from_dict(scaler["imputer"]) if scaler.get("imputer") else None,
        threshold=scaler.get("threshold"),
    )


# --- dispatch ---------------------------------------------------------------------------------------


def save_fitted(output_dir: Path, fitted: Any, problem: str | None = None) -> dict[str, str]:
    """Write ``fitted`` (and its preprocessing) into ``output_dir``; {artifact name: relative file name}."""
    from qmlstudio_worker.ml.classification import FittedClassifier
    from qmlstudio_worker.ml.recurrent import FittedForecaster

    output_dir.mkdir(parents=True, exist_ok=True)
    module_name = type(fitted).__module__
    if module_name.startswith("qmlstudio_worker.quantum"):  # before the classical classes: may subclass them
        module_save = getattr(importlib.import_module(module_name), "save", None)
        if not callable(module_save):
            raise TypeError(f"{module_name} has no save(output_dir, fitted, problem) function")
        files = module_save(output_dir, fitted, problem)
        if not (output_dir / MODEL_FILE).is_file():
            raise TypeError(f"{module_name}.save did not write {MODEL_FILE}")
        return {str(k): str(v) for k, v in dict(files).items()}
    if isinstance(fitted, FittedForecaster):
        return _save_torch(output_dir, fitted, problem)
    if isinstance(fitted, FittedClassifier):
        return _save_sklearn(output_dir, fitted, problem)
    save = getattr(fitted, "save", None)
    if callable(save):
        files = save(output_dir)
        if not isinstance(files, dict) or not (output_dir / MODEL_FILE).is_file():
            raise TypeError(f"{type(fitted).__name__}.save must write {MODEL_FILE} and return its files")
        if problem is not None:
            meta = _read_json(output_dir / MODEL_FILE)
            if meta.get("problem") is None:
                meta["problem"] = problem
                _write_json(output_dir / MODEL_FILE, meta)
        return {str(k): str(v) for k, v in files.items()}
    raise TypeError(f"cannot save a {type(fitted).__name__}: no artifact format for it")


def read_model_card(model_dir: Path) -> dict[str, Any]:
    """The saved model's ``model.json``."""
    return _read_json(Path(model_dir) / MODEL_FILE)


def load_fitted(model_dir: Path) -> Predictor:
    """The model saved in ``model_dir`` by :func:`save_fitted`, ready for ``predict_frame``."""
    model_dir = Path(model_dir)
    meta = read_model_card(model_dir)
    framework = meta.get("framework")
    if framework == "torch":
        return _load_torch(model_dir, meta)
    if framework == "sklearn":
        return _load_sklearn(model_dir, meta)
    loader = meta.get("loader")
    if isinstance(loader, str) and ":" in loader:
        module_name, _, function_name = loader.partition(":")
    elif isinstance(framework, str) and framework in QUANTUM_FRAMEWORKS:
        module_name, function_name = QUANTUM_FRAMEWORKS[framework], "load"
    else:
        raise ValueError(f"{model_dir / MODEL_FILE}: unknown framework {framework!r}")
    if not module_name.startswith("qmlstudio_worker."):
        raise ValueError(f"{model_dir / MODEL_FILE}: loader {module_name!r} is outside qmlstudio_worker")
    function = getattr(importlib.import_module(module_name), function_name)
    takes_meta = len(inspect.signature(function).parameters) >= 2
    predictor: Predictor = function(model_dir, meta) if takes_meta else function(model_dir)
    return predictor
