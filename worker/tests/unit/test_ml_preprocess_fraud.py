"""Preprocessing rules (row range, missing values, splits, normalization fitted on the training part only)
and the classical fraud models next to the majority-class baseline, on a slice of the synthetic sample."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from jsonschema import Draft7Validator

from qmlstudio_worker.ml.classification import (
    CLASSICAL_MODELS,
    METRIC_NAMES,
    classification_metrics,
    confusion_matrix_chart,
    majority_baseline,
    train_classifier,
)
from qmlstudio_worker.ml.preprocess import (
    MISSING_VALUES,
    NORMALIZATIONS,
    MinMaxNormalizer,
    MissingValueImputer,
    drop_missing_rows,
    prepare_classification,
    select_rows,
    stratified_split,
    time_ordered_split,
)
from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum import kernel_classifier as qsvc
from qmlstudio_worker.quantum import variational_classifier as vqc

REPO_ROOT = Path(__file__).resolve().parents[3]
FRAUD_CSV = REPO_ROOT / "samples" / "credit_card_fraud_synthetic.csv"
FRAUD_SCHEMA = REPO_ROOT / "schemas" / "problems" / "fraud-detection.json"
DEFS = REPO_ROOT / "schemas" / "defs.json"


@pytest.fixture(scope="module")
def fraud_slice() -> pd.DataFrame:
    """All 100 frauds and the first 1,900 legitimate rows (5 % fraud): small, still imbalanced."""
    frame = pd.read_csv(FRAUD_CSV)
    frauds = frame[frame["Class"] == 1]
    legit = frame[frame["Class"] == 0].head(1900)
    return pd.concat([legit, frauds]).sort_index().reset_index(drop=True)


def test_options_match_the_schemas() -> None:
    defs = json.loads(DEFS.read_text(encoding="utf-8"))["$defs"]
    assert tuple(defs["normalization"]["enum"]) == NORMALIZATIONS
    assert tuple(defs["missingValues"]["enum"]) == MISSING_VALUES
    body = json.loads(FRAUD_SCHEMA.read_text(encoding="utf-8"))["job"]["bodySchema"]
    quantum = {vqc.MODEL, qsvc.MODEL}
    methods = [m for m in body["properties"]["model"]["enum"] if m not in quantum]
    assert tuple(methods) == CLASSICAL_MODELS
    assert quantum <= set(body["properties"]["model"]["enum"])


def test_select_rows_is_one_based_and_inclusive() -> None:
    frame = pd.DataFrame({"a": range(10, 20)})
    assert select_rows(frame, 1, 3)["a"].tolist() == [10, 11, 12]
    assert select_rows(frame, 3.0, 10)["a"].tolist() == list(range(12, 20))
    assert select_rows(frame, 5, 5)["a"].tolist() == [14]
    with pytest.raises(ValueError, match="cannot exceed"):
        select_rows(frame, 1, 11)
    with pytest.raises(ValueError, match="greater than or equal"):
        select_rows(frame, 4, 3)
    with pytest.raises(ValueError, match="whole number"):
        select_rows(frame, 1.5, 3)


def test_missing_values_strategies_use_training_statistics() -> None:
    train = pd.DataFrame({"a": [1.0, 3.0, np.nan], "b": [10.0, 20.0, 30.0]})
    test = pd.DataFrame({"a": [np.nan, 100.0], "b": [np.nan, 5.0]})
    imputer = MissingValueImputer("impute_average").fit(train)
    assert imputer.transform(train)["a"].tolist() == [1.0, 3.0, 2.0]
    filled = imputer.transform(test)
    assert filled["a"].tolist() == [2.0, 100.0]  # the training mean, not the test mean
    assert filled["b"].tolist() == [20.0, 5.0]

    rand = MissingValueImputer("random_values", seed=7).fit(train)
    first = rand.transform(test)
    assert 1.0 <= first["a"][0] <= 3.0
    assert 10.0 <= first["b"][0] <= 30.0
    again = MissingValueImputer("random_values", seed=7).fit(train).transform(test)
    assert first.equals(again)

    assert drop_missing_rows(test).to_dict("list") == {"a": [100.0], "b": [5.0]}
    with pytest.raises(ValueError, match="cannot impute"):
        MissingValueImputer("remove_rows").fit(train)


@pytest.mark.parametrize(("normalization", "low", "high"), [("[0,1]", 0.0, 1.0), ("[-1,1]", -1.0, 1.0)])
def test_normalizer_is_fitted_on_the_training_part_only(normalization: Any, low: float, high: float) -> None:
    train = np.array([[0.0, 5.0], [10.0, 5.0], [5.0, 5.0]])
    test = np.array([[20.0, 5.0], [-10.0, 7.0]])
    scaler = MinMaxNormalizer(normalization).fit(train)
    scaled = scaler.transform(train)
    assert scaled[:, 0].min() == low
    assert scaled[:, 0].max() == high
    assert np.all(scaled[:, 1] == low)  # constant column
    out = scaler.transform(test)
    span = high - low
    assert out[0, 0] == pytest.approx(low + 2 * span)  # outside the range: not refitted, not clipped
    assert out[1, 0] == pytest.approx(low - span)
    assert np.allclose(scaler.inverse_transform(scaled), train)
    restored = MinMaxNormalizer.from_dict(json.loads(json.dumps(scaler.to_dict())))
    assert np.array_equal(restored.transform(test), out)


def test_time_ordered_split_keeps_the_order() -> None:
    frame = pd.DataFrame({"t": range(10)})
    train, test = time_ordered_split(frame, 0.7)
    assert train["t"].tolist() == list(range(7))
    assert test["t"].tolist() == [7, 8, 9]
    with pytest.raises(ValueError, match="empty"):
        time_ordered_split(frame.head(1), 0.5)


def test_stratified_split_keeps_the_class_shares() -> None:
    labels = np.array([1] * 10 + [0] * 90)
    train, test = stratified_split(labels, 0.3, seed=3)
    assert len(test) == 30
    assert len(train) == 70
    assert set(train).isdisjoint(test)
    assert set(train) | set(test) == set(range(100))
    assert labels[test].sum() == 3
    assert labels[train].sum() == 7
    assert np.array_equal(stratified_split(labels, 0.3, seed=3)[1], test)
    with pytest.raises(ValueError, match="fewer than 2"):
        stratified_split(np.array([1] + [0] * 20), 0.3)


def test_prepare_classification_fits_on_training_rows(fraud_slice: pd.DataFrame) -> None:
    frame = fraud_slice.copy()
    frame.loc[[0, 5, 9], "V1"] = np.nan
    prepared = prepare_classification(frame, "Class", test_ratio=0.25, normalization="[-1,1]", seed=1)
    assert prepared.x_train.min() == -1.0
    assert prepared.x_train.max() == 1.0
    assert not np.isnan(prepared.x_train).any()
    assert not np.isnan(prepared.x_test).any()
    assert prepared.rows_removed == 0
    assert "Class" not in prepared.features
    assert prepared.y_test.sum() == 25
    assert prepared.y_train.sum() == 75
    removed = prepare_classification(frame, "Class", test_ratio=0.25, missing_values="remove_rows", seed=1)
    assert removed.rows_removed == 3
    assert removed.imputer is None
    ranged = prepare_classification(frame, "Class", test_ratio=0.25, from_index=1, to_index=1000)
    assert ranged.rows_selected == 1000


def test_metrics_against_hand_computed_values() -> None:
    y_true = np.array([0, 0, 0, 0, 1, 1])
    y_pred = np.array([0, 0, 1, 0, 1, 0])
    scores = np.array([0.1, 0.2, 0.7, 0.3, 0.8, 0.4])
    m = classification_metrics(y_true, y_pred, scores, 1)
    assert m["accuracy"] == pytest.approx(4 / 6)
    assert m["precision"] == pytest.approx(1 / 2)
    assert m["recall"] == pytest.approx(1 / 2)
    assert m["fMeasure"] == pytest.approx(1 / 2)
    assert m["roc_auc"] == pytest.approx(7 / 8)  # 7 of the 8 (fraud, legit) pairs ranked right
    assert m["pr_auc"] == pytest.approx((1 + 2 / 3) / 2)  # precision 1 at recall 1/2, 2/3 at recall 1
    _, _, base = majority_baseline(np.array([0, 0, 1]), y_true, 1)
    assert base["accuracy"] == pytest.approx(4 / 6)
    assert base["recall"] == 0
    assert base["precision"] == 0
    assert base["roc_auc"] == 0.5
    assert base["pr_auc"] == pytest.approx(2 / 6)
    chart = confusion_matrix_chart(y_true, y_pred, [0, 1], "cm")
    assert [s["data"] for s in chart["series"]] == [[3, 1], [1, 1]]


@pytest.mark.parametrize("model", CLASSICAL_MODELS)
def test_every_model_beats_the_majority_baseline(
    model: str, fraud_slice: pd.DataFrame, protocol_validator: Draft7Validator
) -> None:
    stream = io.StringIO()
    result, fitted = train_classifier(fraud_slice, model=model, test_ratio=0.3, seed=0, emit=Emitter(stream))
    metrics, baseline = result["metrics"], result["baseline"]
    assert set(METRIC_NAMES) <= set(metrics)
    assert set(METRIC_NAMES) <= set(baseline)
    assert result["data"]["test_rows"] == 600
    assert result["data"]["test_positives"] == 30
    assert baseline["recall"] == 0
    assert baseline["roc_auc"] == 0.5
    assert baseline["pr_auc"] == pytest.approx(0.05)
    # The baseline scores 95 % accuracy by flagging nothing; the model must find frauds and rank them.
    assert metrics["accuracy"] > baseline["accuracy"]
    assert metrics["recall"] > 0.6
    assert metrics["fMeasure"] > 0.5
    assert metrics["roc_auc"] > 0.85
    assert metrics["pr_auc"] > 10 * baseline["pr_auc"]
    lines = [json.loads(raw) for raw in stream.getvalue().splitlines()]
    for line in lines:
        assert not list(protocol_validator.iter_errors(line)), line
    charts = [line["chart"] for line in lines if line["type"] == "chart"]
    assert charts == json.loads(json.dumps(result["charts"]))
    assert {c["type"] for c in charts} >= {"confusion_matrix", "line"}
    cm = charts[0]
    assert sum(sum(s["data"]) for s in cm["series"]) == 600
    assert cm["categories"] == ["0", "1"]
    emitted = {
        line["name"]: line["value"] for line in lines if line["type"] == "metric" and line["step"] is None
    }
    assert emitted["recall"] == metrics["recall"]
    assert emitted["baseline_accuracy"] == baseline["accuracy"]
    predictions = fitted.predict(fraud_slice)  # inference path: same imputer, scaler and estimator
    assert len(predictions) == len(fraud_slice)
    assert set(predictions.tolist()) <= {0, 1}


def test_same_seed_same_metrics(fraud_slice: pd.DataFrame) -> None:
    rows = fraud_slice.iloc[::4]  # 500 rows (25 frauds): two forests on them, the same seed
    first, _ = train_classifier(rows, model="Random Forest", test_ratio=0.3, seed=5)
    second, _ = train_classifier(rows, model="Random Forest", test_ratio=0.3, seed=5)
    assert first["metrics"] == second["metrics"]
    assert first["charts"] == second["charts"]


def test_unknown_model_and_missing_target_are_refused(fraud_slice: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="unknown classical fraud model"):
        train_classifier(fraud_slice, model="Variational Quantum Classifier", test_ratio=0.3)
    with pytest.raises(ValueError, match="no column"):
        train_classifier(fraud_slice, model="SVM", test_ratio=0.3, target="Label")
