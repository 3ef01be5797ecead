"""Training a brain tumor classifier on a range of .mat slices: split, input tensors, the epoch loop,
metrics, the majority-class baseline and the charts.

- Split (seeded, ``VALIDATION_SHARE`` held out): ``stratified`` keeps each class's share on both sides;
  ``patient`` puts whole patients on one side (shuffled patients join the held-out part until it holds
  its share of slices), so no patient has slices on both sides: the split published accuracies depend
  on. The held-out part gives the per-epoch validation curves and the final metrics.
- Optimizers adam, sgd, rmsprop at the body's learning rate; loss ``sparse_categorical_crossentropy``
  (cross-entropy on the logits) or ``mean_squared_error`` (between the softmax and the one-hot class).
- Each epoch shuffles the training slices with a generator seeded from the job's seed, so the same data,
  settings and seed give the same history.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from qmlstudio_worker.problems.brain_tumor.image_input import to_model_input
from qmlstudio_worker.problems.brain_tumor.models import DEPTH_3D

VALIDATION_SHARE = 0.2
OPTIMIZERS = ("adam", "sgd", "rmsprop")
LOSSES = ("sparse_categorical_crossentropy", "mean_squared_error")
SplitKind = Literal["stratified", "patient"]
IntArray = np.ndarray[Any, np.dtype[np.int64]]


def range_indices(count: int, start: int, end: int) -> IntArray:
    """0-based indices of the 1-based inclusive range ``start``..``end`` of a dataset of ``count`` slices."""
    if start < 1:
        raise ValueError(f"From Index must be at least 1, got {start}")
    if end > count:
        raise ValueError(f"To Index must not exceed {count} (the dataset has {count} images), got {end}")
    if end <= start:
        raise ValueError(f"From Index must be less than To Index, got {start} and {end}")
    return np.arange(start - 1, end, dtype=np.int64)


def stratified_split(labels: Sequence[int], seed: int) -> tuple[IntArray, IntArray]:
    """(train, held-out) positions: each class's slices shuffled and VALIDATION_SHARE of them held out
    (at least one when the class has two or more)."""
    rng = np.random.default_rng(seed)
    y = np.asarray(labels)
    train: list[int] = []
    held: list[int] = []
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        take = round(len(members) * VALIDATION_SHARE)
        take = min(max(take, 1), len(members) - 1) if len(members) >= 2 else 0
        held += members[:take].tolist()
        train += members[take:].tolist()
    if not held:
        raise ValueError(
            "the training range is too small to hold out validation slices: choose a wider range"
        )
    return np.sort(np.asarray(train, dtype=np.int64)), np.sort(np.asarray(held, dtype=np.int64))


def patient_split(pids: Sequence[str], seed: int) -> tuple[IntArray, IntArray]:
    """(train, held-out) positions with every patient's slices on one side only."""
    patients = list(dict.fromkeys(pids))
    if len(patients) < 2:
        raise ValueError(
            "the patient split needs slices of at least 2 patients in the training range: choose a wider "
            "range or the stratified split"
        )
    order = np.random.default_rng(seed).permutation(len(patients))
    per_patient = {p: np.flatnonzero(np.asarray(pids) == p) for p in patients}
    target = max(1, round(len(pids) * VALIDATION_SHARE))
    held_patients: set[str] = set()
    held_count = 0
    for i in order[:-1]:  # the last patient always trains
        if held_count >= target:
            break
        held_patients.add(patients[i])
        held_count += len(per_patient[patients[i]])
    held = np.sort(np.concatenate([per_patient[p] for p in held_patients]))
    train = np.sort(np.concatenate([per_patient[p] for p in patients if p not in held_patients]))
    return train.astype(np.int64), held.astype(np.int64)


def split_positions(
    kind: SplitKind, labels: Sequence[int], pids: Sequence[str], seed: int
) -> tuple[IntArray, IntArray]:
    if kind == "patient":
        return patient_split(pids, seed)
    if kind == "stratified":
        return stratified_split(labels, seed)
    raise ValueError(f"unknown split {kind!r}: stratified or patient")


def neighbour_stack(index: int, pids: Sequence[str]) -> list[int]:
    """The 3-D models' slices for ``index``: the one before, itself, the one after in the dataset's
    order when they belong to the same patient, else itself again (the edge repeated)."""
    half = DEPTH_3D // 2
    out = []
    for offset in range(-half, half + 1):
        other = index + offset
        same = 0 <= other < len(pids) and pids[other] == pids[index]
        out.append(other if same else index)
    return out


def model_inputs(
    dataset: Any, indices: Sequence[int], size: int, *, stacks: bool, pids: Sequence[str]
) -> Any:
    """The input tensor of the slices at ``indices``: (n, 1, S, S), or (n, 1, DEPTH_3D, S, S) with
    ``stacks`` (each slice with its same-patient neighbours)."""
    import torch

    wanted = [neighbour_stack(int(i), pids) for i in indices] if stacks else [[int(i)] for i in indices]
    unique = sorted({i for stack in wanted for i in stack})
    images = [item.image for item in dataset.images(unique)]
    tensor = to_model_input(images, size)
    where = {index: k for k, index in enumerate(unique)}
    if not stacks:
        return tensor[[where[int(i)] for i in indices]]
    rows = [torch.stack([tensor[where[i], 0] for i in stack]) for stack in wanted]
    return torch.stack(rows).unsqueeze(1)


def make_optimizer(name: str, parameters: Any, learning_rate: float) -> Any:
    import torch

    if name == "adam":
        return torch.optim.Adam(parameters, lr=learning_rate)
    if name == "sgd":
        return torch.optim.SGD(parameters, lr=learning_rate, momentum=0.9)
    if name == "rmsprop":
        return torch.optim.RMSprop(parameters, lr=learning_rate)
    raise ValueError(f"unknown optimizer {name!r}: one of {', '.join(OPTIMIZERS)}")


def make_loss(name: str) -> Callable[[Any, Any], Any]:
    import torch
    from torch.nn import functional

    if name == "sparse_categorical_crossentropy":
        return functional.cross_entropy
    if name == "mean_squared_error":

        def mse(logits: Any, target: Any) -> Any:
            one_hot = functional.one_hot(target, logits.shape[1]).to(logits.dtype)
            return functional.mse_loss(torch.softmax(logits, dim=1), one_hot)

        return mse
    raise ValueError(f"unknown loss {name!r}: one of {', '.join(LOSSES)}")


@dataclass
class History:
    loss: list[float] = field(default_factory=list)
    accuracy: list[float] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    val_accuracy: list[float] = field(default_factory=list)
    epoch_seconds: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[float]]:
        return {
            "loss": self.loss,
            "accuracy": self.accuracy,
            "val_loss": self.val_loss,
            "val_accuracy": self.val_accuracy,
        }


def predict_logits(network: Any, x: Any, batch_size: int = 64) -> Any:
    import torch

    network.eval()
    with torch.no_grad():
        return torch.cat([network(x[s : s + batch_size]) for s in range(0, len(x), batch_size)])


def fit(
    network: Any,
    train: tuple[Any, Any],
    held_out: tuple[Any, Any],
    *,
    epochs: int,
    batch_size: int,
    optimizer: str,
    learning_rate: float,
    loss: str,
    seed: int,
    on_epoch: Callable[[int, History], None] | None = None,
) -> History:
    """Train ``network`` in place; x tensors of model input, y tensors of class indices 0..2."""
    import torch

    loss_fn = make_loss(loss)
    opt = make_optimizer(optimizer, network.parameters(), learning_rate)
    generator = torch.Generator().manual_seed(seed)
    x_train, y_train = train
    x_val, y_val = held_out
    history = History()
    for epoch in range(1, epochs + 1):
        started = time.monotonic()
        network.train()
        order = torch.randperm(len(y_train), generator=generator)
        total_loss, correct, seen = 0.0, 0, 0
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            if len(batch) < 2 and len(order) >= 2:
                continue  # batch norm cannot train on one slice; it is seen in the next epochs' shuffles
            opt.zero_grad()
            logits = network(x_train[batch])
            value = loss_fn(logits, y_train[batch])
            value.backward()
            opt.step()
            total_loss += float(value.detach()) * len(batch)
            correct += int((logits.argmax(dim=1) == y_train[batch]).sum())
            seen += len(batch)
        history.loss.append(total_loss / max(seen, 1))
        history.accuracy.append(correct / max(seen, 1))
        val_logits = predict_logits(network, x_val)
        history.val_loss.append(float(loss_fn(val_logits, y_val)))
        if not (np.isfinite(history.loss[-1]) and np.isfinite(history.val_loss[-1])):
            raise ValueError(
                f"training diverged at epoch {epoch} (the loss is not a finite number): choose a smaller "
                "learning rate"
            )
        history.val_accuracy.append(float((val_logits.argmax(dim=1) == y_val).double().mean()))
        history.epoch_seconds.append(time.monotonic() - started)
        if on_epoch is not None:
            on_epoch(epoch, history)
    return history


def classification_report(
    y_true: Sequence[int], y_pred: Sequence[int], classes: Sequence[str]
) -> dict[str, float]:
    """accuracy, precision_<class>, recall_<class>, f1_<class> and macro_f1 (labels are 0..2)."""
    from sklearn.metrics import accuracy_score, precision_recall_fscore_support  # type: ignore[import-untyped]

    labels = list(range(len(classes)))
    precision, recall, f1, _ = precision_recall_fscore_support(y_true, y_pred, labels=labels, zero_division=0)
    metrics = {"accuracy": float(accuracy_score(y_true, y_pred))}
    for k, name in enumerate(classes):
        metrics[f"precision_{name}"] = float(precision[k])
        metrics[f"recall_{name}"] = float(recall[k])
        metrics[f"f1_{name}"] = float(f1[k])
    metrics["macro_f1"] = float(np.mean(f1))
    return metrics


def majority_predictions(y_train: Sequence[int], count: int) -> list[int]:
    """The majority-class baseline: the training part's most common class for every held-out slice."""
    values, counts = np.unique(np.asarray(y_train), return_counts=True)
    return [int(values[int(np.argmax(counts))])] * count


def _epoch_line_chart(
    title: str, label: str, epochs: list[int], series: dict[str, Sequence[float]]
) -> dict[str, Any]:
    """A line chart with one point per epoch for each named series (values rounded to 6 places)."""
    return {
        "type": "line",
        "title": title,
        "label": label,
        "series": [{"name": name, "data": [round(v, 6) for v in values]} for name, values in series.items()],
        "categories": epochs,
    }


def training_charts(
    history: History, y_true: Sequence[int], y_pred: Sequence[int], classes: Sequence[str]
) -> list[dict[str, Any]]:
    from sklearn.metrics import confusion_matrix

    epochs = list(range(1, len(history.loss) + 1))
    matrix = confusion_matrix(y_true, y_pred, labels=list(range(len(classes))))
    return [
        _epoch_line_chart(
            "Loss over Epochs",
            "loss",
            epochs,
            {"Training loss": history.loss, "Validation loss": history.val_loss},
        ),
        _epoch_line_chart(
            "Accuracy vs Validation Accuracy",
            "accuracy",
            epochs,
            {"Accuracy": history.accuracy, "Validation accuracy": history.val_accuracy},
        ),
        {
            "type": "confusion_matrix",
            "title": "Confusion Matrix",
            "label": "slices",
            "series": [
                {"name": f"true {name}", "data": [int(v) for v in row]}
                for name, row in zip(classes, matrix, strict=True)
            ],
            "categories": list(classes),
        },
    ]
