"""The variational quantum classifier: it beats chance on a small separable set, is deterministic, handles
the imbalance, reports metrics next to the majority baseline, emits protocol lines, and saves/loads for
inference; the feature angle range is chosen on training rows only, and Iris reaches the qiskit-ml
tutorial's accuracy."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import fraud_blobs

from qmlstudio_worker.ml.datasets import DatasetError
from qmlstudio_worker.ml.preprocess import prepare_classification
from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum import variational_classifier as vqc


@pytest.fixture(scope="module")
def prepared():  # type: ignore[no-untyped-def]
    return prepare_classification(fraud_blobs(240), "Class", test_ratio=0.3, seed=1)


def _train(prepared, **kwargs):  # type: ignore[no-untyped-def]
    options = {"pqc": "RealAmplitudes", "reps": 1, "optimizer": "COBYLA", "maxiter": 60, "seed": 3}
    options.update(kwargs)
    return vqc.train_variational_classifier(
        prepared.x_train, prepared.y_train, prepared.x_test, prepared.y_test, prepared=prepared, **options
    )


def test_beats_chance_on_a_separable_set(prepared) -> None:  # type: ignore[no-untyped-def]
    result, _ = _train(prepared, reps=2)
    assert result["metrics"]["roc_auc"] > 0.8  # chance is 0.5
    assert result["metrics"]["recall"] > 0.5
    assert result["baseline"]["recall"] == 0.0  # the majority class never flags fraud
    assert (
        result["losses"]["train"][-1] <= result["losses"]["train"][0]
        or min(result["losses"]["train"]) < (result["losses"]["train"][0])
    )
    (tn, fp), (fn, tp) = result["confusion_matrix"]
    assert tn + fp + fn + tp == len(prepared.y_test)
    assert tp + fn == int(np.sum(prepared.y_test == 1))
    assert (tp / (tp + fn) + tn / (tn + fp)) / 2 > 0.7  # balanced accuracy; chance (and the baseline) 0.5
    assert result["config"]["qubits"] == 4
    assert result["circuit"]["qubits"] == 4


def test_same_seed_same_result(prepared) -> None:  # type: ignore[no-untyped-def]
    first, _ = _train(prepared, maxiter=20)
    again, _ = _train(prepared, maxiter=20)
    other, _ = _train(prepared, maxiter=20, seed=4)
    assert first["metrics"] == again["metrics"]
    assert first["losses"] == again["losses"]
    assert first["losses"] != other["losses"]


@pytest.mark.parametrize(("pqc", "optimizer"), [("EfficientSU2", "SPSA"), ("TwoLocal", "ADAM")])
def test_every_pqc_and_optimizer_trains(prepared, pqc: str, optimizer: str) -> None:  # type: ignore[no-untyped-def]
    result, _ = _train(prepared, pqc=pqc, optimizer=optimizer, maxiter=15)
    assert result["config"]["pqc"] == pqc
    assert result["optimizer"]["method"] == optimizer
    assert len(result["losses"]["train"]) == 15
    assert 0 <= result["metrics"]["roc_auc"] <= 1


def test_shots_and_the_training_row_cap(prepared) -> None:  # type: ignore[no-untyped-def]
    result, fitted = _train(prepared, maxiter=10, shots=128, max_train_rows=100)
    positives = int(np.sum(prepared.y_train == 1))
    assert result["data"]["train_rows_used"] == 100
    # Every fraud row of the fit part is kept; a stratified quarter of the training rows chose the threshold.
    held = result["data"]["threshold"]["validation_positives"]
    assert held >= 1
    assert result["data"]["train_positives_used"] == positives - held
    assert fitted.threshold == result["data"]["threshold"]["threshold"]  # the saved model flags at it
    assert result["config"]["shots"] == 128


def test_emits_protocol_lines(prepared) -> None:  # type: ignore[no-untyped-def]
    stream = io.StringIO()
    _train(prepared, maxiter=10, emit=Emitter(stream))
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    names = {line["name"] for line in lines if line["type"] == "metric"}
    assert {"accuracy", "roc_auc", "baseline_accuracy", "train_loss"} <= names
    charts = [line["chart"]["type"] for line in lines if line["type"] == "chart"]
    assert charts.count("confusion_matrix") == 2
    assert "line" in charts


def test_save_and_load_predict_the_same(prepared, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, fitted = _train(prepared)
    assert vqc.save(tmp_path, fitted, "fraud-detection") == {"model": "model.json"}
    card = json.loads((tmp_path / "model.json").read_text())
    assert card["framework"] == "qiskit"
    assert card["target"] == "Class"
    assert card["parameters"]["angle_range"] == fitted.angle_range in vqc.ANGLE_RANGES
    predictor = vqc.load(tmp_path)
    assert predictor.fitted.angle_range == fitted.angle_range
    frame = fraud_blobs(240, seed=9)
    actual, predicted = predictor.predict_frame(frame)
    assert actual == [float(v) for v in frame["Class"]]
    expected = fitted.predict(frame)
    assert predicted == [float(v) for v in expected]
    assert set(predicted) == {0.0, 1.0}
    with pytest.raises(DatasetError, match="V2"):
        predictor.predict_frame(frame.drop(columns=["V2"]))


def test_angle_range_is_chosen_without_the_test_rows(prepared) -> None:  # type: ignore[no-untyped-def]
    result, fitted = _train(prepared)
    config = result["config"]
    assert config["angle_range"] == fitted.angle_range
    losses = config["angle_range_validation_losses"]
    assert set(losses) == {f"{c:.4g}" for c in vqc.ANGLE_RANGES}
    assert losses[f"{fitted.angle_range:.4g}"] == min(losses.values())
    assert "validation part of the training rows" in config["angle_range_rule"]
    # other test rows (flipped labels, a different count) change neither the choice nor the weights
    shuffled = np.random.default_rng(0).permutation(len(prepared.y_test))[:20]
    _, again = vqc.train_variational_classifier(
        prepared.x_train,
        prepared.y_train,
        prepared.x_test[shuffled],
        1 - prepared.y_test[shuffled],
        pqc="RealAmplitudes",
        reps=1,
        optimizer="COBYLA",
        maxiter=60,
        seed=3,
    )
    assert again.angle_range == fitted.angle_range
    assert np.array_equal(again.weights, fitted.weights)


def test_iris_reaches_the_tutorial_accuracy() -> None:
    """qiskit-ml's VQC tutorial setting as tests/bench/quantum-bench.py runs it (virginica against the
    rest, features scaled to [0, 1], RealAmplitudes reps 3, COBYLA 100, train 0.8, seed 123): the
    tutorial's reference reaches test accuracy 0.90."""
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    iris = load_iris()
    x_train, x_test, y_train, y_test = train_test_split(
        MinMaxScaler().fit_transform(iris.data),
        (iris.target == 2).astype(int),
        train_size=0.8,
        random_state=123,
    )
    result, fitted = vqc.train_variational_classifier(
        x_train,
        y_train,
        x_test,
        y_test,
        pqc="RealAmplitudes",
        reps=3,
        optimizer="COBYLA",
        maxiter=100,
        seed=123,
    )
    assert fitted.qubits == 4
    assert result["data"]["pca_explained_variance"] is None  # one qubit per feature: no PCA
    assert result["metrics"]["accuracy"] >= 0.9


def test_refuses_unknown_options(prepared) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="PQC"):
        _train(prepared, pqc="Nope")
    with pytest.raises(ValueError, match="optimizer"):
        _train(prepared, optimizer="BFGS")


def test_fewer_features_than_qubits_use_one_qubit_per_feature() -> None:
    frame = fraud_blobs(n=120)[["V1", "V2", "Class"]]
    small = prepare_classification(frame, "Class", test_ratio=0.3, seed=2)
    result, fitted = _train(small, maxiter=30)
    assert result["config"]["qubits"] == fitted.qubits == 2
    assert result["metrics"]["roc_auc"] > 0.7


def test_string_labels_use_the_rarer_class_as_fraud(prepared) -> None:  # type: ignore[no-untyped-def]
    labels = {0: "ok", 1: "fraud"}
    result, fitted = vqc.train_variational_classifier(
        prepared.x_train,
        np.array([labels[int(v)] for v in prepared.y_train]),
        prepared.x_test,
        np.array([labels[int(v)] for v in prepared.y_test]),
        reps=2,
        maxiter=30,
        seed=3,
    )
    assert fitted.positive == "fraud"
    assert result["data"]["positive_class"] == "fraud"
    assert set(fitted.predict_normalized(prepared.x_test).tolist()) <= {"ok", "fraud"}


@pytest.mark.parametrize("pqc", ["RealAmplitudes", "EfficientSU2", "TwoLocal"])
def test_positive_probability_equals_qiskit_statevector(pqc: str) -> None:
    """The training path's fraud probability is the odd-parity probability of Qiskit's circuit
    (ZZ feature map + PQC) computed by qiskit.quantum_info.Statevector."""
    import torch
    from qiskit.quantum_info import Statevector

    from qmlstudio_worker.quantum.statevector import Ansatz, parity, qiskit_feature_map, zz_feature_map_states

    rng = np.random.default_rng(11)
    ansatz = Ansatz(pqc, 4, 2)
    x = rng.uniform(0, 0.5, (5, 4))
    weights = rng.uniform(-np.pi, np.pi, ansatz.num_parameters)
    ours = vqc._odd_probability(zz_feature_map_states(x), ansatz, torch.tensor(weights)).numpy()
    circuit = qiskit_feature_map(4).compose(ansatz.qiskit_circuit())
    for row in range(5):
        state = Statevector(circuit.assign_parameters([*x[row], *weights]))
        assert abs(ours[row] - state.probabilities() @ parity(4)) < 1e-10


def test_adam_under_a_noise_model_trains_on_the_noisy_channel(prepared) -> None:  # type: ignore[no-untyped-def]
    # 3 noisy steps (each simulates every training row's noisy channel: 40 rows here) and one exact step for
    # its start
    result, _ = _train(
        prepared, optimizer="ADAM", maxiter=3, noise_model="fake_kyiv", shots=256, max_train_rows=40
    )
    exact, _ = _train(prepared, optimizer="ADAM", maxiter=1, max_train_rows=40)
    curve = result["losses"]["train"]
    assert len(curve) == 3
    assert curve[-1] < curve[0]  # the noisy loss falls
    # the same start, another loss: the optimizer sees the noisy channel's
    assert abs(curve[0] - exact["losses"]["train"][0]) > 1e-4
    config = result["config"]
    assert config["simulation"].startswith("ADAM on the gradient of the exact noisy channel")
    assert config["noisy_training"]["active_qubits"] == 4
    assert result["data"]["train_rows_used"] == 40
    assert config["noisy_training"]["rows_simulated"] == 3 * 40
    # only the test rows ran on Aer with shots: training ran no sampled circuit
    assert config["backend_run"]["circuits_run"] == len(prepared.y_test)
    assert 0 <= result["metrics"]["roc_auc"] <= 1


def test_adam_on_a_device_is_refused(prepared) -> None:  # type: ignore[no-untyped-def]
    from qiskit_ibm_runtime.fake_provider import FakeKyiv

    from qmlstudio_worker.quantum.devices import DeviceTarget
    from qmlstudio_worker.quantum.optimizers import ADAM_ON_A_DEVICE

    device = DeviceTarget("ibm_kyiv", local_backend=FakeKyiv())
    with pytest.raises(ValueError, match="choose COBYLA or SPSA for a real device") as refused:
        _train(prepared, optimizer="ADAM", maxiter=2, device=device)
    assert str(refused.value) == ADAM_ON_A_DEVICE
