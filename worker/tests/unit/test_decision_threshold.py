"""The decision threshold of the fraud classifiers: chosen on validation rows of the training part, for F1
or a recall target, used by the test predictions and the saved model, and reported with the run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from qmlstudio_worker.ml.artifacts import load_fitted, save_fitted
from qmlstudio_worker.ml.classification import positive_scores, train_classifier
from qmlstudio_worker.ml.decision_threshold import apply_threshold, choose_threshold

FRAUD_CSV = Path(__file__).resolve().parents[3] / "samples" / "credit_card_fraud_synthetic.csv"


@pytest.fixture(scope="module")
def fraud_rows() -> pd.DataFrame:
    """The first 6,000 rows of the synthetic table (about 0.5 % fraud, as the whole)."""
    return pd.read_csv(FRAUD_CSV).head(6000)


def test_f1_and_recall_targets_pick_the_thresholds_they_promise() -> None:
    y = np.array([0, 0, 0, 0, 0, 1, 0, 0, 1, 1])
    scores = np.array([0.1, 0.2, 0.2, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.9])
    best_f1 = choose_threshold(y, scores, 1)
    assert best_f1.threshold == 0.7  # flags 0.7 and 0.9: precision 1, recall 2/3, F1 0.8
    assert (best_f1.validation_precision, round(best_f1.validation_f1, 3)) == (1.0, 0.8)
    every_fraud = choose_threshold(y, scores, 1, recall_target=0.99)
    assert every_fraud.threshold == 0.4  # the highest threshold that flags all three
    assert every_fraud.validation_recall == 1.0
    assert every_fraud.validation_precision == 0.6
    assert every_fraud.rule == "recall >= 0.99"
    assert apply_threshold(scores, 0.5, "fraud", "ok").tolist().count("fraud") == 4


def test_a_fraud_model_predicts_at_the_threshold_its_validation_rows_chose(fraud_rows: pd.DataFrame) -> None:
    result, fitted = train_classifier(fraud_rows, model="Logistic Regression", test_ratio=0.3, seed=3)
    report = result["data"]["threshold"]
    assert report["rule"] == "f1"
    assert report["validation_rows"] == round(0.25 * result["data"]["train_rows"])
    assert report["validation_positives"] >= 2
    # The test predictions are the scores at that threshold, and precision/recall are reported at it.
    x_test = fitted.prepared.x_test
    scores = positive_scores(fitted.estimator, x_test, 1)
    flagged = scores >= report["threshold"]
    truth = fitted.prepared.y_test == 1
    assert report["test_precision"] == pytest.approx(np.sum(flagged & truth) / max(np.sum(flagged), 1))
    assert report["test_recall"] == pytest.approx(np.sum(flagged & truth) / np.sum(truth))
    assert result["metrics"]["precision"] == report["test_precision"]
    # Class-weighted logistic regression at its own 0.5 flags far too many legitimate rows.
    at_half = fitted.estimator.predict(x_test) == 1
    precision_at_half = np.sum(at_half & truth) / max(np.sum(at_half), 1)
    assert report["test_precision"] > 2 * precision_at_half
    # The operating point is drawn beside the precision-recall curves.
    pr = next(c for c in result["charts"] if c["title"].startswith("Precision-recall"))
    point = pr["series"][-1]
    assert point["name"].startswith("Logistic Regression at threshold")
    assert point["data"] == [[round(report["test_recall"], 6), round(report["test_precision"], 6)]]


def test_a_recall_target_flags_more_and_the_saved_model_keeps_the_threshold(
    fraud_rows: pd.DataFrame, tmp_path: Path
) -> None:
    f1_run, _ = train_classifier(fraud_rows, model="Logistic Regression", test_ratio=0.3, seed=3)
    result, fitted = train_classifier(
        fraud_rows, model="Logistic Regression", test_ratio=0.3, seed=3, recall_target=0.95
    )
    report = result["data"]["threshold"]
    assert report["rule"] == "recall >= 0.95"
    assert report["validation_recall"] >= 0.95
    assert report["threshold"] <= f1_run["data"]["threshold"]["threshold"]
    assert report["test_recall"] >= f1_run["data"]["threshold"]["test_recall"]
    save_fitted(tmp_path, fitted, "fraud-detection")
    loaded = load_fitted(tmp_path)
    test_rows = fraud_rows.iloc[:500]
    expected = fitted.predict(test_rows)
    _, predicted = loaded.predict_frame(test_rows)
    assert predicted == [1.0 if v == 1 else 0.0 for v in expected]
