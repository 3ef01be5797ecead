"""The brain tumor training pieces: the range, the splits (the patient split never leaks), the neighbour
stacks of the 3-D model, losses and optimizers, the seeded loop's determinism, metrics and baseline."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import torch

from qmlstudio_worker.ml.recurrent import torch_settings
from qmlstudio_worker.problems.brain_tumor import training
from qmlstudio_worker.problems.brain_tumor.models import build_model

CLASSES = ["meningioma", "glioma", "pituitary"]


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """One torch thread, as the job runs (many times faster on a shared 2-core machine)."""
    with torch_settings(1, deterministic=False):
        yield


def test_the_range_is_one_based_and_inclusive_and_checked() -> None:
    assert training.range_indices(3064, 1, 100).tolist() == list(range(100))
    assert training.range_indices(10, 3, 10).tolist() == list(range(2, 10))
    with pytest.raises(ValueError, match="must not exceed 10"):
        training.range_indices(10, 1, 11)
    with pytest.raises(ValueError, match="less than To Index"):
        training.range_indices(10, 5, 5)
    with pytest.raises(ValueError, match="at least 1"):
        training.range_indices(10, 0, 5)


def patients(seed: int) -> tuple[list[int], list[str]]:
    """Slices of 30 patients, 1 to 9 consecutive slices each, one class per patient."""
    rng = np.random.default_rng(seed)
    labels: list[int] = []
    pids: list[str] = []
    for p in range(30):
        count = int(rng.integers(1, 10))
        labels += [int(rng.integers(1, 4))] * count
        pids += [f"p{p}"] * count
    return labels, pids


@pytest.mark.parametrize("seed", range(12))
def test_the_patient_split_never_puts_a_patient_on_both_sides(seed: int) -> None:
    labels, pids = patients(seed)
    train, held = training.split_positions("patient", labels, pids, seed)
    assert sorted([*train.tolist(), *held.tolist()]) == list(range(len(pids)))
    assert {pids[i] for i in train}.isdisjoint({pids[i] for i in held})
    assert len(held) >= 0.2 * len(pids) - 1e-9
    assert len(train) > len(held)


def test_the_patient_split_needs_two_patients() -> None:
    with pytest.raises(ValueError, match="at least 2 patients"):
        training.split_positions("patient", [1, 2, 3], ["a", "a", "a"], 0)


def test_the_stratified_split_holds_out_a_fifth_of_every_class_and_is_seeded() -> None:
    labels = [1] * 20 + [2] * 40 + [3] * 10
    pids = [f"p{i // 3}" for i in range(70)]
    train, held = training.split_positions("stratified", labels, pids, 42)
    held_labels = [labels[i] for i in held]
    assert (held_labels.count(1), held_labels.count(2), held_labels.count(3)) == (4, 8, 2)
    assert set(train.tolist()).isdisjoint(held.tolist())
    again = training.split_positions("stratified", labels, pids, 42)
    assert np.array_equal(again[1], held)
    assert not np.array_equal(training.split_positions("stratified", labels, pids, 7)[1], held)


def test_neighbour_stacks_stay_within_the_patient_and_repeat_the_edges() -> None:
    pids = ["a", "a", "a", "b", "b", "c"]
    assert training.neighbour_stack(1, pids) == [0, 1, 2]
    assert training.neighbour_stack(0, pids) == [0, 0, 1]
    assert training.neighbour_stack(2, pids) == [1, 2, 2]  # slice 3 is patient b's
    assert training.neighbour_stack(5, pids) == [5, 5, 5]


def test_mean_squared_error_compares_the_softmax_with_the_one_hot_class() -> None:
    logits = torch.tensor([[10.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    value = training.make_loss("mean_squared_error")(logits, torch.tensor([0, 2]))
    p = torch.softmax(logits, dim=1)
    expected = ((p - torch.tensor([[1.0, 0, 0], [0, 0, 1.0]])) ** 2).mean()
    torch.testing.assert_close(value, expected)


@pytest.mark.parametrize("optimizer", training.OPTIMIZERS)
def test_each_optimizer_lowers_the_training_loss(optimizer: str) -> None:
    torch.manual_seed(0)
    y = torch.tensor([0, 1, 2] * 8)
    x = torch.rand(24, 1, 32, 32) * 0.3 + y.reshape(-1, 1, 1, 1) * 0.3  # brightness tells the class
    model = build_model("FCN")
    history = training.fit(
        model,
        (x, y),
        (x[:6], y[:6]),
        epochs=6,
        batch_size=8,
        optimizer=optimizer,
        learning_rate=0.01,
        loss="sparse_categorical_crossentropy",
        seed=0,
    )
    assert len(history.loss) == len(history.val_accuracy) == 6
    assert history.loss[-1] < history.loss[0]


def test_the_same_seed_gives_the_same_history() -> None:
    y = torch.tensor([0, 1, 2] * 4)
    x = torch.rand(12, 1, 32, 32, generator=torch.Generator().manual_seed(1))

    def run() -> dict[str, list[float]]:
        torch.manual_seed(5)
        model = build_model("QCNN", {"n_qubits": 4, "circuit_depth": 1})
        return training.fit(
            model,
            (x, y),
            (x[:3], y[:3]),
            epochs=2,
            batch_size=4,
            optimizer="adam",
            learning_rate=0.01,
            loss="mean_squared_error",
            seed=5,
        ).as_dict()

    assert run() == run()


def test_metrics_per_class_and_the_majority_baseline() -> None:
    truth = [0, 0, 1, 1, 1, 2]
    predicted = [0, 1, 1, 1, 2, 2]
    m = training.classification_report(truth, predicted, CLASSES)
    assert m["accuracy"] == pytest.approx(4 / 6)
    assert m["precision_glioma"] == pytest.approx(2 / 3)
    assert m["recall_meningioma"] == pytest.approx(1 / 2)
    assert m["f1_pituitary"] == pytest.approx(2 / 3)
    assert m["macro_f1"] == pytest.approx((2 / 3 + 2 / 3 + 2 / 3) / 3)
    assert training.majority_predictions([2, 1, 1, 0], 3) == [1, 1, 1]
    charts = training.training_charts(training.History([1.0], [0.5], [1.1], [0.4]), truth, predicted, CLASSES)
    assert [c["title"] for c in charts] == [
        "Loss over Epochs",
        "Accuracy vs Validation Accuracy",
        "Confusion Matrix",
    ]
    assert [s["data"] for s in charts[2]["series"]] == [[1, 1, 0], [0, 2, 1], [0, 0, 1]]


def test_a_diverging_run_stops_with_a_plain_reason() -> None:
    network = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(16, 3))
    with torch.no_grad():
        network[1].weight.fill_(float("nan"))
    x, y = torch.rand(4, 1, 4, 4), torch.tensor([0, 1, 2, 0])
    with pytest.raises(ValueError, match=r"diverged at epoch 1 .*smaller learning rate"):
        training.fit(
            network,
            (x, y),
            (x, y),
            epochs=3,
            batch_size=2,
            optimizer="sgd",
            learning_rate=0.1,
            loss="sparse_categorical_crossentropy",
            seed=0,
        )
