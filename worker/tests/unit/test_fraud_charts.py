"""The fraud charts draw what each model's scores mean."""

from __future__ import annotations

import numpy as np

from qmlstudio_worker.ml.classification import pr_chart


def test_a_constant_score_is_the_flat_no_skill_line_at_the_fraud_share() -> None:
    y = np.array([0] * 8 + [1] * 2)
    chart = pr_chart(y, {"majority-class baseline": np.zeros(10)}, 1, "PR")
    assert chart["series"][0]["data"] == [[0.0, 0.2], [1.0, 0.2]]


def test_a_ranking_model_keeps_its_curve_recall_rising() -> None:
    y = np.array([0, 0, 1, 0, 1, 1])
    scores = np.array([0.1, 0.2, 0.3, 0.4, 0.8, 0.9])
    data = pr_chart(y, {"model": scores}, 1, "PR")["series"][0]["data"]
    recalls = [point[0] for point in data]
    assert recalls == sorted(recalls)
    assert recalls[-1] == 1.0
    assert data[-1][1] == 0.5  # every row called fraud: precision is the fraud share
