"""The scoring tail and data facts both quantum classifiers report through ml/binary_report.py."""

from __future__ import annotations

import numpy as np

from qmlstudio_worker.ml.binary_report import binary_data_facts, binary_labels, score_binary


def test_score_binary_flags_at_the_threshold_and_reports_beside_the_majority_baseline() -> None:
    y_train = np.array([0, 0, 0, 1, 0, 1])
    y_test = np.array([0, 1, 0, 1])
    labels = binary_labels(y_train)
    assert labels == (1, 0)
    scores = np.array([0.2, 0.7, 0.6, 0.9])
    _, fields = score_binary("Model", y_train, y_test, scores, 0.65, labels, "test part", None, None)
    # 0.7 and 0.9 reach 0.65 (both positive rows); 0.6 does not: no false positive
    assert fields["confusion_matrix"] == [[2, 0], [0, 2]]
    assert fields["baseline"]["name"] == "majority class"
    assert [c["title"] for c in fields["charts"]][:2] == [
        "Model: confusion matrix (test part)",
        "Majority-class baseline: confusion matrix (test part)",
    ]
    _, lower = score_binary("Model", y_train, y_test, scores, 0.5, labels, "test part", None, None)
    assert lower["confusion_matrix"] == [[1, 1], [0, 2]]


def test_binary_data_facts_count_the_rows_used_and_the_positive_class() -> None:
    facts = binary_data_facts(np.array([0, 1, 1, 0]), np.array([1, 0, 0]), np.int64(1), (3, 2), None)
    assert facts == {
        "train_rows": 4,
        "test_rows": 3,
        "positive_class": 1,
        "train_positives": 2,
        "test_positives": 1,
        "train_rows_used": 3,
        "train_positives_used": 2,
        "test_rows_scored": 3,
    }
