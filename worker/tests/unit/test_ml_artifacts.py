"""ml/artifacts.py: what the saved files hold and the refusals of load_fitted (the full round trips of a
trained model are in test_handlers_financial.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from qmlstudio_worker.ml.artifacts import load_fitted, save_fitted
from qmlstudio_worker.ml.classification import train_classifier
from qmlstudio_worker.ml.datasets import DatasetError
from qmlstudio_worker.ml.preprocess import MissingValueImputer


def test_the_imputer_round_trips_through_json_with_its_ranges() -> None:
    train = pd.DataFrame({"a": [1.0, 3.0, np.nan], "b": [10.0, 20.0, 30.0]})
    imputer = MissingValueImputer("random_values", seed=5).fit(train)
    restored = MissingValueImputer.from_dict(json.loads(json.dumps(imputer.to_dict())))
    assert (restored.strategy, restored.seed) == ("random_values", 5)
    assert (restored.means, restored.lows, restored.highs) == (imputer.means, imputer.lows, imputer.highs)
    filled = restored.transform(pd.DataFrame({"a": [np.nan] * 50, "b": [1.0] * 50}))["a"]
    assert filled.between(1.0, 3.0).all()


def test_a_saved_classifier_reads_columns_by_name_and_refuses_missing_ones(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2))
    label = (x[:, 0] + x[:, 1] > 1.2).astype(int)
    frame = pd.DataFrame({"f1": x[:, 0], "f2": x[:, 1], "is_fraud": label})
    _, fitted = train_classifier(frame, model="Logistic Regression", test_ratio=0.3, target="is_fraud")
    files = save_fitted(tmp_path, fitted, problem="fraud-detection")
    assert files == {"model": "model.joblib", "scaler": "scaler.json", "model_card": "model.json"}
    card = json.loads((tmp_path / "model.json").read_text())
    assert (card["problem"], card["framework"], card["features"], card["target"]) == (
        "fraud-detection",
        "sklearn",
        ["f1", "f2"],
        "is_fraud",
    )
    predictor = load_fitted(tmp_path)
    shuffled = frame[["is_fraud", "f2", "f1"]]  # column order does not matter
    actual, predicted = predictor.predict_frame(shuffled)
    assert actual == [float(v) for v in label]
    assert predicted == [float(v) for v in fitted.predict(frame)]
    with pytest.raises(DatasetError, match="no column named 'f2'"):
        predictor.predict_frame(frame.drop(columns=["f2"]))


def test_load_fitted_refuses_a_directory_without_a_model_or_with_an_unknown_framework(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no saved model"):
        load_fitted(tmp_path)
    (tmp_path / "model.json").write_text(json.dumps({"framework": "tensorflow"}))
    with pytest.raises(ValueError, match="unknown framework 'tensorflow'"):
        load_fitted(tmp_path)
    (tmp_path / "model.json").write_text(json.dumps({"framework": "x", "loader": "os:system"}))
    with pytest.raises(ValueError, match="outside qmlstudio_worker"):
        load_fitted(tmp_path)


def test_save_fitted_refuses_an_object_it_has_no_format_for(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="cannot save a dict"):
        save_fitted(tmp_path, {"weights": [1, 2]})
