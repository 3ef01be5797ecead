"""Fraud detection with scikit-learn: the classical methods of ``schemas/problems/fraud-detection.json``.

``train_classifier`` takes the parsed job params (``model``, ``test_ratio``) plus the preprocess
options, and a DataFrame; it splits stratified, handles the class imbalance (balanced class weights, or
balanced sample weights where the estimator has no ``class_weight``), trains, and reports accuracy,
precision, recall, fMeasure (F1), ROC-AUC and PR-AUC of the positive (fraud) class **next to the
majority-class baseline** on the same test rows, with a confusion matrix, a ROC curve and a PR curve in
the protocol's chart shape. Everything is seeded: the same data, params and seed give the same metrics.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd  # type: ignore[import-untyped]

from qmlstudio_worker.ml.decision_threshold import (
    VALIDATION_SHARE,
    ThresholdChoice,
    apply_threshold,
    choose_threshold,
)
from qmlstudio_worker.ml.preprocess import (
    MissingValues,
    Normalization,
    PreparedData,
    prepare_classification,
    stratified_split,
)
from qmlstudio_worker.protocol import Emitter

CLASSICAL_MODELS: tuple[str, ...] = (
    "SVM",
    "Random Forest",
    "Logistic Regression",
    "Gradient Boosting",
    "Neural Network",
)
METRIC_NAMES: tuple[str, ...] = ("accuracy", "precision", "recall", "fMeasure", "roc_auc", "pr_auc")
DEFAULT_TARGET = "Class"
MAX_CURVE_POINTS = 200

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def build_model(name: str, seed: int = 0) -> Any:
    """An unfitted scikit-learn estimator for the method ``name``, with class weights where it has them."""
    if name == "SVM":
        from sklearn.svm import SVC  # type: ignore[import-untyped]

        return SVC(kernel="rbf", C=1.0, gamma="scale", class_weight="balanced", random_state=seed)
    if name == "Random Forest":
        from sklearn.ensemble import RandomForestClassifier  # type: ignore[import-untyped]

        return RandomForestClassifier(
            n_estimators=200,
            class_weight="balanced_subsample",
            min_samples_leaf=2,
            random_state=seed,
            n_jobs=1,
        )
    if name == "Logistic Regression":
        from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

        return LogisticRegression(class_weight="balanced", max_iter=1000, random_state=seed)
    if name == "Gradient Boosting":
        from sklearn.ensemble import GradientBoostingClassifier

        return GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=seed)
    if name == "Neural Network":
        from sklearn.neural_network import MLPClassifier  # type: ignore[import-untyped]

        return MLPClassifier(
            hidden_layer_sizes=(32, 16), max_iter=200, early_stopping=False, random_state=seed
        )
    raise ValueError(f"unknown classical fraud model {name!r}; expected one of {', '.join(CLASSICAL_MODELS)}")


def _uses_sample_weights(name: str) -> bool:
    """Estimators without ``class_weight``: balance them with per-row weights instead."""
    return name in ("Gradient Boosting", "Neural Network")


def positive_label(labels: np.ndarray[Any, Any]) -> Any:
    """The fraud class: 1 (or True) when the labels are 0/1, otherwise the rarer class."""
    classes, counts = np.unique(labels, return_counts=True)
    if classes.size != 2:
        raise ValueError(
            f"fraud detection needs exactly two classes in the target column, got {classes.size}"
        )
    for value in classes:
        if isinstance(value, bool | np.bool_ | int | np.integer | float | np.floating) and value == 1:
            return value
    return classes[int(np.argmin(counts))]


def classification_metrics(
    y_true: np.ndarray[Any, Any], y_pred: np.ndarray[Any, Any], scores: FloatArray, positive: Any
) -> dict[str, float]:
    """Accuracy, and precision, recall, F1 (fMeasure), ROC-AUC and PR-AUC of the positive class.

    Precision of a model that flags nothing is 0 (not undefined); PR-AUC is the average precision.
    """
    from sklearn.metrics import (  # type: ignore[import-untyped]
        accuracy_score,
        average_precision_score,
        f1_score,
        precision_score,
        recall_score,
        roc_auc_score,
    )

    is_positive = np.asarray(y_true) == positive
    return {
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "precision": float(precision_score(y_true, y_pred, pos_label=positive, zero_division=0)),
        "recall": float(recall_score(y_true, y_pred, pos_label=positive, zero_division=0)),
        "fMeasure": float(f1_score(y_true, y_pred, pos_label=positive, zero_division=0)),
        "roc_auc": float(roc_auc_score(is_positive, scores)),
        "pr_auc": float(average_precision_score(is_positive, scores)),
    }


def emit_evaluation(
    emit: Emitter, metrics: dict[str, Any], baseline: dict[str, Any], charts: list[dict[str, Any]]
) -> None:
    """The evaluation lines of a fraud classifier: each of ``METRIC_NAMES`` for the model, then as
    ``baseline_<name>`` for the majority-class baseline, each chart, and progress 95 "evaluated"."""
    for name in METRIC_NAMES:
        emit.metric(name, metrics[name])
    for name in METRIC_NAMES:
        emit.metric(f"baseline_{name}", baseline[name])
    for chart in charts:
        emit.chart_spec(chart)
    emit.progress(95, "evaluated")


def majority_baseline(
    y_train: np.ndarray[Any, Any], y_test: np.ndarray[Any, Any], positive: Any
) -> tuple[np.ndarray[Any, Any], FloatArray, dict[str, float]]:
    """Always predict the training part's majority class, with one constant score for every row."""
    classes, counts = np.unique(y_train, return_counts=True)
    majority = classes[int(np.argmax(counts))]
    predictions = np.full(len(y_test), majority, dtype=np.asarray(y_test).dtype)
    scores = np.full(len(y_test), 1.0 if majority == positive else 0.0)
    return predictions, scores, classification_metrics(y_test, predictions, scores, positive)


def _thin(points: list[list[float]], limit: int = MAX_CURVE_POINTS) -> list[list[float]]:
    """At most ``limit`` points, evenly spaced along the curve, first and last kept."""
    if len(points) <= limit:
        return points
    keep = np.unique(np.linspace(0, len(points) - 1, limit).round().astype(int))
    return [points[i] for i in keep]


def confusion_matrix_chart(
    y_true: np.ndarray[Any, Any], y_pred: np.ndarray[Any, Any], classes: Sequence[Any], title: str
) -> dict[str, Any]:
    """One series per true class (rows), its counts per predicted class; categories are the predicted."""
    from sklearn.metrics import confusion_matrix

    matrix = confusion_matrix(y_true, y_pred, labels=list(classes))
    names = [str(c) for c in classes]
    return {
        "type": "confusion_matrix",
        "title": title,
        "label": "transactions",
        "series": [
            {"name": f"true {name}", "data": [int(v) for v in row]}
            for name, row in zip(names, matrix, strict=True)
        ],
        "categories": names,
    }


def roc_chart(
    y_true: np.ndarray[Any, Any], curves: dict[str, FloatArray], positive: Any, title: str
) -> dict[str, Any]:
    """ROC curves as [false positive rate, true positive rate] pairs, one series per model."""
    from sklearn.metrics import roc_curve

    series = []
    for name, scores in curves.items():
        fpr, tpr, _ = roc_curve(np.asarray(y_true) == positive, scores)
        points = [[round(float(x), 6), round(float(y), 6)] for x, y in zip(fpr, tpr, strict=True)]
        series.append({"name": name, "data": _thin(points)})
    return {"type": "line", "title": title, "label": "true positive rate", "series": series, "categories": []}


def pr_chart(
    y_true: np.ndarray[Any, Any], curves: dict[str, FloatArray], positive: Any, title: str
) -> dict[str, Any]:
    """Precision-recall curves as [recall, precision] pairs, recall rising, one series per model."""
    from sklearn.metrics import precision_recall_curve

    series = []
    is_positive = np.asarray(y_true) == positive
    for name, scores in curves.items():
        if np.ptp(np.asarray(scores, dtype=np.float64)) == 0:
            # One score for every row (the majority-class baseline) has a single operating point; sklearn
            # adds its (recall 0, precision 1) anchor, which draws a diagonal. The no-skill line is flat.
            share = round(float(is_positive.mean()), 6)
            series.append({"name": name, "data": [[0.0, share], [1.0, share]]})
            continue
        precision, recall, _ = precision_recall_curve(is_positive, scores)
        points = [[round(float(r), 6), round(float(p), 6)] for r, p in zip(recall, precision, strict=True)]
        points.reverse()
        series.append({"name": name, "data": _thin(points)})
    return {"type": "line", "title": title, "label": "precision", "series": series, "categories": []}


def positive_scores(model: Any, x: FloatArray, positive: Any) -> FloatArray:
    """A score that grows with the chance of fraud: the probability, or the SVM's decision value."""
    classes = list(model.classes_)
    if hasattr(model, "predict_proba"):
        return cast(
            FloatArray, np.asarray(model.predict_proba(x), dtype="float64")[:, classes.index(positive)]
        )
    decision = np.asarray(model.decision_function(x), dtype="float64")
    # decision_function is positive for classes_[1]
    return decision if classes[1] == positive else -decision


@dataclass
class FittedClassifier:
    """What inference needs: the estimator, the fitted preprocessing and the labels."""

    model_name: str
    estimator: Any
    prepared: PreparedData
    positive: Any
    target: str = DEFAULT_TARGET
    #: The decision threshold on positive_scores chosen on validation rows (None: the estimator's own).
    threshold: float | None = None

    def predict(self, frame: pd.DataFrame) -> np.ndarray[Any, Any]:
        from qmlstudio_worker.ml.preprocess import numeric_features

        x = numeric_features(frame, self.prepared.features)
        if self.prepared.imputer is not None:
            x = self.prepared.imputer.transform(x)
        elif x.isna().to_numpy().any():
            raise ValueError("the rows have empty cells and the model was trained with remove_rows")
        x_scaled = self.prepared.normalizer.transform(x)
        return predict_at_threshold(self.estimator, x_scaled, self.positive, self.threshold)


def predict_at_threshold(
    estimator: Any, x: FloatArray, positive: Any, threshold: float | None
) -> np.ndarray[Any, Any]:
    """The estimator's labels, or with ``threshold`` the positive class where its score reaches it."""
    if threshold is None:
        return np.asarray(estimator.predict(x))
    negative = next(c for c in estimator.classes_ if c != positive)
    return apply_threshold(positive_scores(estimator, x, positive), threshold, positive, negative)


def train_classifier(
    frame: pd.DataFrame,
    *,
    model: str,
    test_ratio: float,
    target: str = DEFAULT_TARGET,
    features: Sequence[str] | None = None,
    normalization: Normalization = "[0,1]",
    missing_values: MissingValues = "impute_average",
    seed: int = 0,
    recall_target: float | None = None,
    emit: Emitter | None = None,
) -> tuple[dict[str, Any], FittedClassifier]:
    """Train ``model`` on ``frame`` and evaluate it next to the majority-class baseline.

    Returns the result data (config, data summary, metrics, baseline metrics, charts, timing) as plain
    JSON, and the fitted model for the artifacts. With ``emit``, progress, metric (the model's under
    their names, the baseline's as ``baseline_<name>``, per-iteration ``train_loss`` where the estimator
    records one) and chart lines are written as it goes.

    The estimator is fitted on three quarters of the training rows; the last quarter (stratified) chooses
    the decision threshold (:mod:`.decision_threshold`: the best F1, or the best precision that reaches
    ``recall_target``), which the test predictions and the saved model use.
    """
    if model not in CLASSICAL_MODELS:
        raise ValueError(
            f"unknown classical fraud model {model!r}; expected one of {', '.join(CLASSICAL_MODELS)}"
        )
    started = time.monotonic()
    if emit is not None:
        emit.progress(5, "preprocessing")
    prepared = prepare_classification(
        frame,
        target,
        test_ratio=test_ratio,
        features=features,
        normalization=normalization,
        missing_values=missing_values,
        seed=seed,
    )
    positive = positive_label(prepared.y_train)
    classes = sorted(np.unique(np.concatenate([prepared.y_train, prepared.y_test])).tolist(), key=str)
    if emit is not None:
        summary = prepared.summary()
        emit.log(
            f"{model}: {summary['train_rows']} training rows, {summary['test_rows']} test rows, "
            f"{len(prepared.features)} features, positive class {positive}"
        )
        emit.progress(15, "training")

    try:
        fit_rows, validation_rows = stratified_split(prepared.y_train, VALIDATION_SHARE, seed)
    except ValueError:  # too few positive rows to hold some out: the estimator's own threshold
        fit_rows, validation_rows = np.arange(len(prepared.y_train)), np.arange(0)
    x_fit, y_fit = prepared.x_train[fit_rows], prepared.y_train[fit_rows]
    estimator = build_model(model, seed)
    fit_started = time.monotonic()
    from sklearn.exceptions import ConvergenceWarning  # type: ignore[import-untyped]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        if _uses_sample_weights(model):
            from sklearn.utils.class_weight import compute_sample_weight  # type: ignore[import-untyped]

            weights = compute_sample_weight("balanced", y_fit)
            estimator.fit(x_fit, y_fit, sample_weight=weights)
        else:
            estimator.fit(x_fit, y_fit)
    not_converged = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    if emit is not None:
        for message in not_converged:
            emit.log(f"{model}: {message}", level="warning")
    fit_seconds = time.monotonic() - fit_started

    losses: list[float] = []
    if hasattr(estimator, "loss_curve_"):
        losses = [float(v) for v in estimator.loss_curve_]
    elif hasattr(estimator, "train_score_"):
        losses = [float(v) for v in estimator.train_score_]
    if emit is not None:
        for step, loss in enumerate(losses, start=1):
            emit.metric("train_loss", loss, step=step)
        emit.progress(75, "evaluating")

    choice = None
    if len(validation_rows):
        choice = choose_threshold(
            prepared.y_train[validation_rows],
            positive_scores(estimator, prepared.x_train[validation_rows], positive),
            positive,
            recall_target,
        )
        if emit is not None:
            emit.log(f"{model}: {choice.sentence()}")
    elif emit is not None:
        emit.log(f"{model}: too few positive training rows to hold some out; the estimator's own threshold")
    y_test = prepared.y_test
    y_pred = predict_at_threshold(
        estimator, prepared.x_test, positive, choice.threshold if choice is not None else None
    )
    scores = positive_scores(estimator, prepared.x_test, positive)
    metrics = classification_metrics(y_test, y_pred, scores, positive)
    if emit is not None and choice is not None:
        emit.log(
            f"{model}: at that threshold on the test rows: precision {metrics['precision']:.3f}, "
            f"recall {metrics['recall']:.3f}"
        )
    base_pred, base_scores, baseline = majority_baseline(prepared.y_train, y_test, positive)

    charts = [
        confusion_matrix_chart(y_test, y_pred, classes, f"{model}: confusion matrix (test part)"),
        confusion_matrix_chart(
            y_test, base_pred, classes, "Majority-class baseline: confusion matrix (test part)"
        ),
        roc_chart(
            y_test, {model: scores, "majority-class baseline": base_scores}, positive, "ROC curve (test part)"
        ),
        threshold_point(
            pr_chart(
                y_test,
                {model: scores, "majority-class baseline": base_scores},
                positive,
                "Precision-recall curve (test part)",
            ),
            model,
            choice,
            metrics,
        ),
    ]
    if losses:
        charts.append(
            {
                "type": "line",
                "title": f"{model}: training loss per iteration",
                "label": "loss",
                "series": [{"name": "training loss", "data": [round(v, 6) for v in losses]}],
                "categories": list(range(1, len(losses) + 1)),
            }
        )
    if emit is not None:
        emit_evaluation(emit, metrics, baseline, charts)

    result: dict[str, Any] = {
        "config": {
            "model": model,
            "test_ratio": test_ratio,
            "target": target,
            "normalization": normalization,
            "missing_values": missing_values,
            "seed": seed,
            "class_imbalance": "balanced sample weights"
            if _uses_sample_weights(model)
            else "balanced class weights",
        },
        "data": {
            **prepared.summary(),
            "positive_class": positive.item() if hasattr(positive, "item") else positive,
            "train_positives": int(np.sum(prepared.y_train == positive)),
            "test_positives": int(np.sum(y_test == positive)),
            # the handler passes data on as the output's training_data
            "threshold": threshold_report(choice, metrics),
        },
        "metrics": metrics,
        "baseline": {"name": "majority class", **baseline},
        "charts": charts,
        "warnings": not_converged,
        "fit_seconds": round(fit_seconds, 3),
        "duration_seconds": round(time.monotonic() - started, 3),
    }
    return result, FittedClassifier(
        model, estimator, prepared, positive, target, choice.threshold if choice is not None else None
    )


def threshold_point(
    chart: dict[str, Any], model: str, choice: ThresholdChoice | None, metrics: dict[str, float]
) -> dict[str, Any]:
    """The precision-recall chart with the model's operating point: its test precision and recall at the
    chosen threshold, a one-point series beside the curves."""
    if choice is not None:
        point = [[round(metrics["recall"], 6), round(metrics["precision"], 6)]]
        chart["series"].append({"name": f"{model} at threshold {choice.threshold:.4g}", "data": point})
    return chart


def threshold_report(choice: ThresholdChoice | None, metrics: dict[str, float]) -> dict[str, Any] | None:
    """The chosen threshold, how it was chosen and its validation numbers, and the test precision and
    recall at it (the result's ``threshold``)."""
    if choice is None:
        return None
    return {**choice.to_dict(), "test_precision": metrics["precision"], "test_recall": metrics["recall"]}
