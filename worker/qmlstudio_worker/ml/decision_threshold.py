"""The decision threshold of a binary classifier on imbalanced data, chosen on validation rows.

A classifier's score grows with the chance of the positive (fraud) class; flagging every row whose score
reaches 0.5 suits balanced classes, not 0.5 % fraud. The threshold is chosen on a validation part of the
TRAINING rows (stratified, held out from the fit; the test rows never choose anything):

- ``f1`` (default): the threshold with the best F1 of the positive class on the validation rows;
- a recall target (0.5..0.99, the form's Recall Target): the highest threshold whose validation recall
  reaches the target, which is the one with the best precision among those that do.

Candidates are the validation rows' own scores (a row is flagged when its score is at least the
threshold). The choice, its validation precision, recall and F1 and the rule are reported with the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: A quarter of the training rows (stratified) choose the threshold.
VALIDATION_SHARE = 0.25

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


@dataclass(frozen=True)
class ThresholdChoice:
    threshold: float
    rule: str  # "f1" or "recall >= 0.8"
    validation_rows: int
    validation_positives: int
    validation_precision: float
    validation_recall: float
    validation_f1: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "rule": self.rule,
            "validation_rows": self.validation_rows,
            "validation_positives": self.validation_positives,
            "validation_precision": self.validation_precision,
            "validation_recall": self.validation_recall,
            "validation_f1": self.validation_f1,
        }

    def sentence(self) -> str:
        goal = "the best F1" if self.rule == "f1" else f"the best precision at {self.rule.replace('>=', '≥')}"
        rows = (
            f"{self.validation_rows} validation rows of the training part "
            f"({self.validation_positives} positive)"
        )
        numbers = (
            f"precision {self.validation_precision:.3f}, recall {self.validation_recall:.3f}, "
            f"F1 {self.validation_f1:.3f}"
        )
        return f"decision threshold {self.threshold:.4g}, chosen for {goal} on {rows}: {numbers}"


def _counts(is_positive: np.ndarray[Any, Any], flagged: np.ndarray[Any, Any]) -> tuple[float, float, float]:
    true_positive = float(np.sum(flagged & is_positive))
    precision = true_positive / float(np.sum(flagged)) if np.any(flagged) else 0.0
    recall = true_positive / float(np.sum(is_positive)) if np.any(is_positive) else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


def choose_threshold(
    y: np.ndarray[Any, Any], scores: FloatArray, positive: Any, recall_target: float | None = None
) -> ThresholdChoice:
    """The threshold for ``scores`` (higher: more likely ``positive``) on the validation labels ``y``."""
    is_positive = np.asarray(y) == positive
    values = np.asarray(scores, dtype="float64")
    if values.shape != is_positive.shape or values.size == 0:
        raise ValueError("scores and labels must have the same, non-zero length")
    if recall_target is not None and not 0 < recall_target <= 1:
        raise ValueError(f"the recall target must be in (0, 1], got {recall_target}")
    best: tuple[float, float, float, float] | None = None  # (threshold, precision, recall, f1)
    for threshold in np.unique(values)[::-1]:  # from the highest score down: recall only grows
        precision, recall, f1 = _counts(is_positive, values >= threshold)
        if recall_target is None:
            if best is None or f1 > best[3]:
                best = (float(threshold), precision, recall, f1)
        elif recall >= recall_target:
            best = (float(threshold), precision, recall, f1)
            break
    if best is None:  # no positive row in the validation part, or the target unreachable: flag all
        threshold = float(values.min())
        best = (threshold, *_counts(is_positive, values >= threshold))
    return ThresholdChoice(
        threshold=best[0],
        rule="f1" if recall_target is None else f"recall >= {recall_target:g}",
        validation_rows=int(values.size),
        validation_positives=int(np.sum(is_positive)),
        validation_precision=best[1],
        validation_recall=best[2],
        validation_f1=best[3],
    )


def apply_threshold(
    scores: FloatArray, threshold: float, positive: Any, negative: Any
) -> np.ndarray[Any, Any]:
    """The predicted labels: ``positive`` where the score reaches the threshold."""
    flagged = np.asarray(scores, dtype="float64") >= threshold
    labels: np.ndarray[Any, Any] = np.where(flagged, positive, negative)
    return labels
