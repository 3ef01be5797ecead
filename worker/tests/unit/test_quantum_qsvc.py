"""The quantum support vector classifier: its kernel is the fidelity of Qiskit's ZZ feature map states, it
beats chance on a separable set next to the majority baseline, is deterministic, chooses its decision
threshold on held-out training rows, samples with shots, saves and loads for inference, and runs through
the fraud-detection handler."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import REPO_ROOT, fraud_blobs
from test_handlers_financial import result_of, run

from qmlstudio_worker.ml.artifacts import load_fitted, read_model_card
from qmlstudio_worker.ml.decision_threshold import choose_threshold
from qmlstudio_worker.ml.preprocess import prepare_classification, stratified_split
from qmlstudio_worker.quantum import kernel_classifier as qsvc

Lines = list[dict[str, Any]]


@pytest.fixture(scope="module")
def prepared():  # type: ignore[no-untyped-def]
    return prepare_classification(fraud_blobs(200), "Class", test_ratio=0.3, seed=1)


def _train(prepared, **kwargs):  # type: ignore[no-untyped-def]
    options: dict[str, Any] = {"reps": 2, "seed": 3}
    options.update(kwargs)
    return qsvc.train_kernel_classifier(
        prepared.x_train, prepared.y_train, prepared.x_test, prepared.y_test, prepared=prepared, **options
    )


def test_kernel_equals_qiskit_statevector_fidelity() -> None:
    from qiskit.quantum_info import Statevector

    from qmlstudio_worker.quantum.statevector import qiskit_feature_map

    rng = np.random.default_rng(7)
    left, right = rng.uniform(0, 1, (3, 3)), rng.uniform(0, 1, (4, 3))
    kernel = qsvc.fidelity_kernel(left, right, reps=2)
    circuit = qiskit_feature_map(3, 2)
    params = list(circuit.parameters)  # sorted x[0], x[1], x[2]

    def state(x: np.ndarray) -> Statevector:
        return Statevector(circuit.assign_parameters(dict(zip(params, x, strict=True))))

    for i, a in enumerate(left):
        for j, b in enumerate(right):
            expected = abs(state(a).inner(state(b))) ** 2
            assert kernel[i, j] == pytest.approx(expected, abs=1e-10)
    square = qsvc.fidelity_kernel(left, left, reps=2, symmetric=True)
    assert np.allclose(np.diag(square), 1.0)
    assert np.allclose(square, square.T)


def test_beats_chance_next_to_the_majority_baseline_and_is_deterministic(prepared) -> None:  # type: ignore[no-untyped-def]
    result, _ = _train(prepared)
    assert result["model"] == "Quantum Support Vector Classifier"
    assert result["metrics"]["roc_auc"] > 0.8
    assert result["metrics"]["recall"] > 0.5
    assert result["baseline"]["recall"] == 0.0
    (tn, fp), (fn, tp) = result["confusion_matrix"]
    assert tn + fp + fn + tp == len(prepared.y_test)
    assert (tp / (tp + fn) + tn / (tn + fp)) / 2 > 0.7
    assert result["config"]["qubits"] == 4
    assert result["circuit"]["qubits"] == 4
    assert result["circuit"]["two_qubit_gates"] > 0
    assert result["data"]["support_vectors"] > 0
    again, _ = _train(prepared)
    assert again["metrics"] == result["metrics"]


def test_training_rows_are_capped_keeping_every_fraud_row(prepared) -> None:  # type: ignore[no-untyped-def]
    result, _ = _train(prepared, max_train_rows=60)
    assert result["data"]["train_rows_used"] == 60
    # Every fraud row of the fit part (the training rows less the quarter that chose the threshold).
    held = result["data"]["threshold"]["validation_positives"]
    assert result["data"]["train_positives_used"] == result["data"]["train_positives"] - held


def test_the_threshold_is_chosen_on_held_out_training_rows_from_the_decision_function(prepared) -> None:  # type: ignore[no-untyped-def]
    result, fitted = _train(prepared)
    report = result["data"]["threshold"]
    _, validation = stratified_split(prepared.y_train, 0.25, 3)
    assert report["rule"] == "f1"
    assert report["validation_rows"] == len(validation)
    assert result["data"]["train_rows_used"] == len(prepared.y_train) - len(validation)  # not fitted on
    # The held-out rows' scores are the SVM's decision function (its logistic) against the support vectors.
    scores = fitted.positive_probability(prepared.x_train[validation])
    expected = choose_threshold(prepared.y_train[validation], scores, 1)
    assert report["threshold"] == expected.threshold
    assert fitted.threshold == expected.threshold  # the test rows and the saved model flag at it
    test_scores = fitted.positive_probability(prepared.x_test)
    flagged = test_scores >= expected.threshold
    assert result["confusion_matrix"][1][1] == int(np.sum(flagged & (prepared.y_test == 1)))
    assert (report["test_precision"], report["test_recall"]) == (
        result["metrics"]["precision"],
        result["metrics"]["recall"],
    )
    pr_chart = next(c for c in result["charts"] if c.get("title", "").startswith("Precision-recall"))
    point = pr_chart["series"][-1]
    assert point["name"].startswith("Quantum Support Vector Classifier at threshold")
    assert point["data"] == [[round(report["test_recall"], 6), round(report["test_precision"], 6)]]
    # A recall target: the best precision among the thresholds whose validation recall reaches it.
    targeted, _ = _train(prepared, recall_target=0.95)
    chosen = targeted["data"]["threshold"]
    assert chosen["rule"] == "recall >= 0.95"
    assert chosen["validation_recall"] >= 0.95
    assert chosen["threshold"] <= report["threshold"] or report["validation_recall"] >= 0.95


def test_shots_sample_the_kernel(prepared) -> None:  # type: ignore[no-untyped-def]
    exact, _ = _train(prepared)
    sampled, _ = _train(prepared, shots=64)
    assert "64 shots" in sampled["config"]["simulation"]
    assert sampled["metrics"] != exact["metrics"]
    assert sampled["metrics"]["roc_auc"] > 0.7
    rng = np.random.default_rng(0)
    angles = rng.uniform(0, 0.5, (5, 2))
    kernel = qsvc.fidelity_kernel(angles, angles, 2, shots=10, rng=rng, symmetric=True)
    assert np.allclose(kernel * 10, np.round(kernel * 10))  # counts out of 10 shots
    assert np.allclose(kernel, kernel.T)


def test_save_and_load_predict_the_same(prepared, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result, fitted = _train(prepared)
    qsvc.save(tmp_path, fitted)
    card = json.loads((tmp_path / "model.json").read_text())
    assert card["framework"] == "qiskit-kernel"
    assert len(card["parameters"]["dual_coef"]) == result["data"]["support_vectors"]
    frame = fraud_blobs(200).iloc[:40]
    loaded = load_fitted(tmp_path)
    _, predicted = loaded.predict_frame(frame)
    expected = [1.0 if v == 1 else 0.0 for v in fitted.predict(frame).tolist()]
    assert predicted == expected


def test_runs_through_the_fraud_handler(tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]) -> None:
    frame = pd.read_csv(REPO_ROOT / "samples" / "credit_card_fraud_synthetic.csv")
    small = pd.concat([frame[frame["Class"] == 1], frame[frame["Class"] == 0].head(600)]).sort_index()
    dataset = tmp_path / "fraud.csv"
    small.to_csv(dataset, index=False)
    path = REPO_ROOT / "src" / "generated" / "fixtures" / "fraud-detection.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Quantum"]
    body = {**request["body"], "model": "Quantum Support Vector Classifier", "circuit_repetition": 1}
    out = tmp_path / "out"
    code, lines = run("fraud-detection", body, dataset, out, parse_protocol_lines, recall_target=0.9)
    data = result_of(code, lines)
    # The form's Recall Target reaches the QSVC's threshold, chosen on held-out training rows.
    assert data["training_data"]["threshold"]["rule"] == "recall >= 0.9"
    assert data["training_data"]["threshold"]["validation_recall"] >= 0.9
    assert (data["model"], data["model_type"]) == ("Quantum Support Vector Classifier", "Quantum")
    assert data["baseline"]["name"] == "majority class"
    assert data["metrics"]["roc_auc"] > 0.6
    assert read_model_card(out)["model"] == "Quantum Support Vector Classifier"
    actual, predicted = load_fitted(out).predict_frame(small.head(30))
    assert len(actual) == len(predicted) == 30
