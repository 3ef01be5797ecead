"""What every binary classifier of a problem with a positive (fraud) class reports the same way: its two
labels, the rows it saw (the result's ``data`` facts), and the scoring tail (predictions at the decision
threshold, metrics beside the majority-class baseline, confusion, ROC and PR charts with the operating
point, the evaluation log lines). The quantum classifiers (:mod:`qmlstudio_worker.quantum.kernel_classifier`,
:mod:`qmlstudio_worker.quantum.variational_classifier`) build their models differently and share this."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from qmlstudio_worker.ml.classification import (
    classification_metrics,
    confusion_matrix_chart,
    emit_evaluation,
    majority_baseline,
    positive_label,
    pr_chart,
    roc_chart,
    threshold_point,
)
from qmlstudio_worker.ml.decision_threshold import ThresholdChoice
from qmlstudio_worker.ml.preprocess import PreparedData
from qmlstudio_worker.protocol import Emitter

Labels = np.ndarray[Any, Any]


@dataclass(frozen=True)
class Evaluation:
    metrics: dict[str, Any]
    baseline: dict[str, Any]
    charts: list[dict[str, Any]]
    confusion: list[list[int]]


def binary_labels(y_train: Labels) -> tuple[Any, Any]:
    """(positive, negative): the positive class (:func:`.classification.positive_label`) and the other."""
    positive = positive_label(y_train)
    return positive, next(c for c in np.unique(y_train) if c != positive)


def evaluated_part(scored: int, test_rows: int) -> str:
    """What the charts' rows are: the whole test part, or the seeded sample of it a measured run scored
    (the one wording of every binary classifier's charts)."""
    return "test part" if scored >= test_rows else f"sampled test rows ({scored:,} of {test_rows:,})"


def evaluate_binary(
    model: str,
    y_train: Labels,
    y_test: Labels,
    scores: np.ndarray[Any, Any],
    y_pred: Labels,
    positive: Any,
    scored: str,
    extra_charts: tuple[dict[str, Any], ...] = (),
) -> Evaluation:
    """The ``model``'s metrics on the test rows beside the majority-class baseline, with the confusion, ROC
    and PR charts (``scored`` says which test rows were scored) and the model's own ``extra_charts``."""
    metrics = classification_metrics(y_test, y_pred, scores, positive)
    base_pred, base_scores, baseline = majority_baseline(y_train, y_test, positive)
    classes = sorted(np.unique(np.concatenate([y_train, y_test])).tolist(), key=str)
    curves = {model: scores, "majority-class baseline": base_scores}
    charts = [
        confusion_matrix_chart(y_test, y_pred, classes, f"{model}: confusion matrix ({scored})"),
        confusion_matrix_chart(
            y_test, base_pred, classes, f"Majority-class baseline: confusion matrix ({scored})"
        ),
        roc_chart(y_test, curves, positive, f"ROC curve ({scored})"),
        pr_chart(y_test, curves, positive, f"Precision-recall curve ({scored})"),
        *extra_charts,
    ]
    is_pos = y_test == positive
    tp, fn = int(np.sum(is_pos & (y_pred == positive))), int(np.sum(is_pos & (y_pred != positive)))
    fp, tn = int(np.sum(~is_pos & (y_pred == positive))), int(np.sum(~is_pos & (y_pred != positive)))
    return Evaluation(metrics, baseline, charts, [[tn, fp], [fn, tp]])


def score_binary(
    model: str,
    y_train: Labels,
    y_test: Labels,
    scores: np.ndarray[Any, Any],
    threshold: float,
    labels: tuple[Any, Any],
    scored: str,
    choice: ThresholdChoice | None,
    emit: Emitter | None,
    extra_charts: tuple[dict[str, Any], ...] = (),
) -> tuple[Evaluation, dict[str, Any]]:
    """The scoring tail: each test row flagged when its score reaches ``threshold`` (``labels`` are
    (positive, negative)), evaluated (:func:`evaluate_binary`) with the operating point on the PR chart and
    logged; returns the evaluation and the result's fields from it (metrics, baseline, confusion matrix,
    charts; the threshold report goes in ``data``)."""
    positive, negative = labels
    y_pred = np.where(scores >= threshold, positive, negative)
    evaluation = evaluate_binary(model, y_train, y_test, scores, y_pred, positive, scored, extra_charts)
    evaluation.charts[3] = threshold_point(evaluation.charts[3], model, choice, evaluation.metrics)
    if emit is not None:
        emit_evaluation(emit, evaluation.metrics, evaluation.baseline, evaluation.charts)
    fields = {
        "metrics": evaluation.metrics,
        "baseline": {"name": "majority class", **evaluation.baseline},
        "confusion_matrix": evaluation.confusion,
        "charts": evaluation.charts,
    }
    return evaluation, fields


def binary_data_facts(
    y_train: Labels,
    y_test: Labels,
    positive: Any,
    used: tuple[int, int],
    prepared: PreparedData | None,
) -> dict[str, Any]:
    """The rows a binary classifier saw (the start of the result's ``data``): the preprocessing's summary,
    the positive class and its counts, and ``used`` (training rows used, positives among them)."""
    summary = (
        prepared.summary() if prepared is not None else {"train_rows": len(y_train), "test_rows": len(y_test)}
    )
    return {
        **summary,
        "positive_class": positive.item() if hasattr(positive, "item") else positive,
        "train_positives": int(np.sum(y_train == positive)),
        "test_positives": int(np.sum(y_test == positive)),
        "train_rows_used": used[0],
        "train_positives_used": used[1],
        "test_rows_scored": len(y_test),
    }
