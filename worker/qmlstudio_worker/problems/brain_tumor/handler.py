"""The "brain-tumor" job: train a tumor classifier (meningioma, glioma, pituitary) on a range of .mat slices.

Body (``schemas/problems/brain-tumor.json`` job.bodySchema): ``model_name`` densenet121, FCN or 3D_CNNs
(``training_model_type`` classical) or QCNN, QSVM (quantum; with n_qubits, circuit_depth, patch_size,
n_layers, units_per_layer, activations, dropout_rates), ``batch_size``, ``epochs``, ``learning_rate``,
``optimizer``, ``loss_function``. QGANs, QVAE and QBMs are refused with the reason (:data:`NOT_BUILT_MODELS`).
The envelope's extension carries the dataset (``dataset.path``, a .mat v7.3/v5 file or a zip of them), the
1-based inclusive ``range`` of slices, the ``split`` (stratified or patient) and the ``seed``.

Models: :mod:`.models`, :mod:`.qcnn`,
:mod:`.qsvm`; the loop, split and metrics: :mod:`.training`.
The result carries the metrics (accuracy, per-class precision/recall/F1, macro F1) on the held-out
slices beside the majority-class baseline, the charts (loss, accuracy vs validation accuracy, confusion
matrix), ``output_data`` (result type Training and the per-epoch history) and the trained model bundle
(:mod:`qmlstudio_worker.problems.brain_tumor.model_store`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.run_record import build_run_record, check_seed, seed_everything
from qmlstudio_worker.jobs.support import Stopwatch, base_result, extension_of
from qmlstudio_worker.ml.artifacts import media_type
from qmlstudio_worker.problem_schemas import resolve_schemas_dir
from qmlstudio_worker.problems.brain_tumor.models import (
    CLASSICAL_MODELS,
    DEFAULT_INPUT_SIZE,
    NOT_BUILT_MODELS,
    QUANTUM_MODELS,
    build_model,
    load_pretrained_densenet,
    pretrained_densenet_path,
)
from qmlstudio_worker.quantum.run_facts import TEST_PREDICTIONS, quantum_run

PROBLEM = "brain-tumor"


def _qcnn_estimate_inputs(params: Mapping[str, Any]) -> dict[str, Any]:
    """What the estimate's QCNN builder needs of this problem: the body's QCNN settings over the defaults."""
    from qmlstudio_worker.problems.brain_tumor import qcnn

    config = qcnn.qcnn_config(dict(params))
    return {
        "qubits": int(config["n_qubits"]),
        "depth": int(config["circuit_depth"]),
        "patches": qcnn.patch_positions(int(config["patch_size"]), int(config["step_size"])),
        "ansatz": qcnn.ANSATZ,
    }


def _qsvm_estimate_inputs(_params: Mapping[str, Any]) -> dict[str, Any]:
    """What the estimate's QSVM builder needs of this problem: the kernel's row cap and the held-out share."""
    from qmlstudio_worker.problems.brain_tumor.qsvm import MAX_KERNEL_ROWS
    from qmlstudio_worker.problems.brain_tumor.training import VALIDATION_SHARE

    return {"max_kernel_rows": MAX_KERNEL_ROWS, "validation_share": VALIDATION_SHARE}


#: The model family each quantum choice runs, with the figures its builder reads from this problem (the
#: resource estimate builds what the job runs from it and imports no problem).
ESTIMATE_MODELS = {
    "QCNN": ("QCNN", _qcnn_estimate_inputs),
    "QSVM": ("QSVM", _qsvm_estimate_inputs),
}
DEFAULT_SEED = 42
DEFAULT_RANGE = (1, 100)
SAMPLE_FILE = "brain_tumor_dataset.mat"
#: One intra-op thread: several threads competing for a shared 2-core CPU are far slower (DenseNet-121 at
#: 64x64 on a loaded machine: 21.6 images/s with one thread, 1.9 with two; see ml/forecasting_job.py).
TORCH_THREADS = 1
SYNTHETIC_NOTE = "synthetic data: accuracy on it says nothing about real MRI scans"


def _refuse_model(model_name: str, model_type: str) -> None:
    if model_name in NOT_BUILT_MODELS:
        raise JobValidationError(NOT_BUILT_MODELS[model_name], "/params/model_name")
    family = CLASSICAL_MODELS if model_type == "classical" else QUANTUM_MODELS
    if model_name not in family:
        raise JobValidationError(
            f"{model_name} is not a {model_type} model: choose one of {', '.join(family)}.",
            "/params/model_name",
        )


def _dataset_entry(extension: Mapping[str, Any]) -> tuple[Path, str, bool, list[str]]:
    dataset = extension.get("dataset")
    if isinstance(dataset, Mapping) and isinstance(dataset.get("path"), str):
        path = Path(dataset["path"])
        return path, str(dataset.get("label") or path.name), bool(dataset.get("synthetic", False)), []
    sample = resolve_schemas_dir().parent / "samples" / SAMPLE_FILE
    note = f"no extension.dataset: read the shipped sample {SAMPLE_FILE}"
    return sample, "Sample Dataset 1 (2020-2024) (synthetic)", True, [note]


def _range(extension: Mapping[str, Any], emit: Any) -> tuple[int, int]:
    value = extension.get("range")
    if isinstance(value, Mapping):
        return int(value["start"]), int(value["end"])
    emit.log(
        f"no training range in the job: slices {DEFAULT_RANGE[0]} to {DEFAULT_RANGE[1]}", level="warning"
    )
    return DEFAULT_RANGE


def _quantum_config(params: Mapping[str, Any], extension: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "n_qubits": params.get("n_qubits"),
        "circuit_depth": params.get("circuit_depth"),
        "patch_size": params.get("patch_size"),
        # The spec's body has no step size: the form's Step Size travels in the extension when sent.
        "step_size": params.get("step_size") or extension.get("step_size"),
        "n_layers": params.get("n_layers"),
        "units_per_layer": params.get("units_per_layer"),
        "activation": params.get("activations"),
        "dropout_rate": params.get("dropout_rates"),
    }


def _validated(pointer: str, call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call(...)``; a ValueError (the user's words) becomes a validation error on ``pointer``."""
    try:
        return call(*args, **kwargs)
    except JobValidationError:
        raise
    except ValueError as exc:
        text = str(exc)
        raise JobValidationError(text[:1].upper() + text[1:], pointer) from None


def run(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    from qmlstudio_worker.ml.recurrent import torch_settings

    with torch_settings(TORCH_THREADS, deterministic=False):
        return _train(params, ctx)


@dataclass
class _Slices:
    """The selected slices as model inputs, split into training and held-out positions."""

    x: Any
    y: Any
    indices: np.ndarray[Any, Any]
    train_pos: list[int]
    held_pos: list[int]
    start: int
    end: int

    def part(self, positions: list[int]) -> tuple[Any, Any]:
        return self.x[positions], self.y[positions]


def _model_config(params: dict[str, Any], extension: Mapping[str, Any], batch_size: int) -> dict[str, Any]:
    """The quantum model's settings (none for a classical network), checked against the qubit budget."""
    model_name = str(params["model_name"])
    if model_name == "QCNN":
        from qmlstudio_worker.problems.brain_tumor.qcnn import check_qubit_budget, qcnn_config

        config = qcnn_config(_quantum_config(params, extension))
        _validated("/params/n_qubits", check_qubit_budget, config, batch_size)
        return config
    if model_name == "QSVM":
        return {"n_qubits": int(params["n_qubits"]), "circuit_depth": int(params["circuit_depth"])}
    return {}


def _load_slices(
    params: dict[str, Any], extension: Mapping[str, Any], config: dict[str, Any], seed: int, emit: Any
) -> _Slices:
    """Read the range of slices, split them (stratified or by patient) and prepare the model inputs."""
    import torch

    from qmlstudio_worker.problems.brain_tumor import training
    from qmlstudio_worker.problems.brain_tumor.mat_data import open_mat_dataset

    model_name, split = str(params["model_name"]), str(extension["split"])
    size = DEFAULT_INPUT_SIZE[model_name]
    path, label, synthetic, notes = _dataset_entry(extension)
    for note in notes:
        emit.log(note, level="warning")
    emit.progress(1, "loading the dataset")
    try:
        dataset = open_mat_dataset(path)
    except ValueError as exc:  # MatFormatError: its message is what the user sees after the prefix
        raise JobValidationError(f"Error parsing file: {exc}", "/extension/dataset") from None
    except OSError as exc:
        raise JobValidationError(f"The dataset could not be read ({exc}).", "/extension/dataset") from None
    with dataset:
        start, end = _range(extension, emit)
        indices = _validated("/extension/range", training.range_indices, len(dataset), start, end)
        all_pids = dataset.pids()
        labels = np.asarray(dataset.labels())[indices]
        pids = [all_pids[i] for i in indices]
        train_pos, held_pos = _validated(
            "/extension/split", training.split_positions, split, labels.tolist(), pids, seed
        )
        if model_name == "QSVM":
            from qmlstudio_worker.problems.brain_tumor.qsvm import MAX_KERNEL_ROWS, check_qsvm_budget

            rows = min(len(train_pos), MAX_KERNEL_ROWS)
            _validated("/params/n_qubits", check_qsvm_budget, config["n_qubits"], rows)
        emit.log(
            f"{PROBLEM}: {label} ({len(dataset)} slices{', ' + SYNTHETIC_NOTE if synthetic else ''}), slices "
            f"{start}-{end}: {len(train_pos)} training, {len(held_pos)} held out ({split} split, "
            f"{len({pids[i] for i in train_pos})} + {len({pids[i] for i in held_pos})} patients); model "
            f"{model_name} at {size}x{size} pixels, seed {seed}"
        )
        emit.progress(3, "preparing the images")
        x = _validated(
            "/extension/dataset",
            training.model_inputs,
            dataset,
            indices.tolist(),
            size,
            stacks=model_name == "3D_CNNs",
            pids=all_pids,
        )
    y = torch.as_tensor(labels - 1, dtype=torch.long)
    return _Slices(x, y, indices, train_pos, held_pos, start, end)


def _network(model_name: str, config: dict[str, Any], extra: dict[str, Any], emit: Any) -> Any:
    """The network to train (the QSVM's embedding is an FCN); DenseNet-121 starts from the pretrained
    weights when their file exists."""
    network = build_model("FCN" if model_name == "QSVM" else model_name, config)
    if model_name == "densenet121":
        weights = pretrained_densenet_path()
        if weights is not None:
            skipped = load_pretrained_densenet(network, weights)
            extra["weights"] = (
                f"pretrained ({weights.name}; {len(skipped)} tensors not loaded: the classifier)"
            )
        else:
            extra["weights"] = "random initialization (no QMLSTUDIO_DENSENET_WEIGHTS file)"
        emit.log(f"densenet121 weights: {extra['weights']}")
    return network


def _fit(params: dict[str, Any], network: Any, slices: _Slices, seed: int, emit: Any) -> Any:
    """Train the network, reporting each epoch's losses and accuracies."""
    from qmlstudio_worker.problems.brain_tumor import training

    model_name, epochs = str(params["model_name"]), int(params["epochs"])
    stage = "training the embedding network (FCN)" if model_name == "QSVM" else "training"
    fit_end = 80 if model_name == "QSVM" else 90

    def on_epoch(epoch: int, history: training.History) -> None:
        emit.metric("loss", history.loss[-1], step=epoch)
        emit.metric("train_accuracy", history.accuracy[-1], step=epoch)  # "accuracy" is the final one
        emit.metric("val_loss", history.val_loss[-1], step=epoch)
        emit.metric("val_accuracy", history.val_accuracy[-1], step=epoch)
        emit.log(
            f"epoch {epoch}/{epochs}: loss {history.loss[-1]:.4f}, accuracy {history.accuracy[-1]:.3f}, "
            f"val_loss {history.val_loss[-1]:.4f}, val_accuracy {history.val_accuracy[-1]:.3f} "
            f"({history.epoch_seconds[-1]:.1f} s)"
        )
        emit.progress(5 + (fit_end - 5) * epoch / epochs, f"{stage}: epoch {epoch}/{epochs}")

    return _validated(
        "/params/learning_rate",
        training.fit,
        network,
        slices.part(slices.train_pos),
        slices.part(slices.held_pos),
        epochs=epochs,
        batch_size=int(params["batch_size"]),
        optimizer=str(params["optimizer"]),
        learning_rate=float(params["learning_rate"]),
        loss=str(params["loss_function"]),
        seed=seed,
        on_epoch=on_epoch,
    )


def _final_model(
    model_name: str,
    network: Any,
    slices: _Slices,
    config: dict[str, Any],
    seed: int,
    extra: dict[str, Any],
    emit: Any,
) -> tuple[Any, list[int]]:
    """The model to save and its held-out predictions: the network, or for the QSVM the quantum kernel
    SVM fitted on the network's embeddings of (at most MAX_KERNEL_ROWS) training slices."""
    from qmlstudio_worker.problems.brain_tumor import training

    x_held, _ = slices.part(slices.held_pos)
    if model_name != "QSVM":
        return network, training.predict_logits(network, x_held).argmax(dim=1).tolist()
    from qmlstudio_worker.problems.brain_tumor.qsvm import MAX_KERNEL_ROWS, fit_qsvm

    emit.progress(82, "fitting the quantum kernel SVM")
    x_train, y_train = slices.part(slices.train_pos)
    rows = np.sort(np.random.default_rng(seed).permutation(len(y_train))[:MAX_KERNEL_ROWS])
    model = _validated(
        "/params/n_qubits",
        fit_qsvm,
        network,
        x_train[rows],
        y_train[rows].tolist(),
        n_qubits=config["n_qubits"],
        reps=config["circuit_depth"],
        seed=seed,
    )
    extra["kernel_rows"] = len(rows)
    return model, model.predict_proba(x_held).argmax(axis=1).tolist()


def _evaluation(
    history: Any, slices: _Slices, predicted: list[int], emit: Any
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """(metrics, baseline, charts) of the held-out slices beside the majority class, emitted."""
    from qmlstudio_worker.problems.brain_tumor import training
    from qmlstudio_worker.problems.brain_tumor.mat_data import CLASS_NAMES

    truth = slices.part(slices.held_pos)[1].tolist()
    classes = list(CLASS_NAMES)
    metrics = training.classification_report(truth, predicted, classes)
    baseline_pred = training.majority_predictions(slices.part(slices.train_pos)[1].tolist(), len(truth))
    baseline_metrics = training.classification_report(truth, baseline_pred, classes)
    charts = training.training_charts(history, truth, predicted, classes)
    for name in ("accuracy", "macro_f1"):
        emit.metric(name, metrics[name])
        emit.metric(f"baseline_{name}", baseline_metrics[name])
    for chart in charts:
        emit.chart_spec(chart)
    return metrics, {"name": "Majority class", "metrics": baseline_metrics}, charts


def _save(
    ctx: JobContext, model: Any, params: dict[str, Any], config: dict[str, Any], extra: dict[str, Any]
) -> tuple[str, dict[str, str]] | None:
    """Save the model bundle into the output directory and announce its files: (the card, names by role)."""
    from qmlstudio_worker.problems.brain_tumor.mat_data import CLASS_NAMES
    from qmlstudio_worker.problems.brain_tumor.model_store import save_bundle

    out_dir = ctx.artifact_dir()
    if out_dir is None:
        return None
    model_name = str(params["model_name"])
    card = save_bundle(
        out_dir,
        model_name=model_name,
        model_type="quantum" if params["training_model_type"] == "quantum" else "classical",
        model=model,
        config=config,
        input_size=DEFAULT_INPUT_SIZE[model_name],
        classes=list(CLASS_NAMES),
        extra=extra,
    )
    files = {"model": card.name}
    for file_name in sorted(p.name for p in out_dir.iterdir() if p.is_file()):
        if file_name != card.name:
            files[Path(file_name).stem] = file_name
    for name, file_name in files.items():
        ctx.emitter.artifact(name, str(out_dir / file_name), media_type(file_name))
    return card.name, files


def _train(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    from qmlstudio_worker.problems.brain_tumor.mat_data import CLASS_NAMES

    emit = ctx.emitter
    clock = Stopwatch()
    model_name = str(params["model_name"])
    _refuse_model(model_name, str(params["training_model_type"]))
    extension = extension_of(ctx)
    seed = _validated("/extension/seed", check_seed, extension.get("seed", DEFAULT_SEED))
    config = _model_config(params, extension, int(params["batch_size"]))
    slices = _load_slices(params, extension, config, seed, emit)
    seed_everything(seed, torch=True)
    extra: dict[str, Any] = {
        "split": str(extension["split"]),
        "range": [slices.start, slices.end],
        "seed": seed,
    }
    network = _network(model_name, config, extra, emit)
    history = _fit(params, network, slices, seed, emit)
    model, predicted = _final_model(model_name, network, slices, config, seed, extra, emit)
    metrics, baseline, charts = _evaluation(history, slices, predicted, emit)
    quantum = str(params["training_model_type"]) == "quantum"
    result = base_result(
        problem=PROBLEM,
        model=model_name,
        model_type="Quantum" if quantum else "Classical",
        metrics=metrics,
        baseline=baseline,
        charts=charts,
    )
    result["confusion_matrix"] = [list(s["data"]) for s in charts[2]["series"]]
    result["losses"] = {"train": history.loss, "test": history.val_loss}
    result["output_data"] = {"result_type": "Training", "training_history": history.as_dict()}
    result["final_metrics"] = metrics
    result["trained_model_type"] = model_name
    if quantum:  # QCNN and QSVM simulate their circuits exactly in torch, here
        from qmlstudio_worker.quantum import hybrid, kernel_classifier

        simulation = kernel_classifier.SIMULATION if model_name == "QSVM" else hybrid.SIMULATION
        result["quantum_run"] = quantum_run({"simulation": simulation}, TEST_PREDICTIONS)
    size = DEFAULT_INPUT_SIZE[model_name]
    result["training_data"] = {
        "train_slices": len(slices.train_pos),
        "held_out_slices": len(slices.held_pos),
        "input_size": size,
        "epoch_seconds": [round(s, 3) for s in history.epoch_seconds],
        "classes": list(CLASS_NAMES),
        "config": config,
        **extra,
    }
    emit.progress(96, "saving the model")
    saved = _save(ctx, model, params, config, extra)
    if saved is not None:
        result["trained_model_path"], result["artifacts"] = saved
    _, label, synthetic, _ = _dataset_entry(extension)
    entry = extension.get("dataset")
    dataset_sha = str(entry["sha256"]) if isinstance(entry, Mapping) and entry.get("sha256") else None
    result["dataset"] = {
        "label": label,
        "synthetic": synthetic,
        "sha256": dataset_sha,
        "rows_used": len(slices.indices),
    }
    record = build_run_record(params, seed=seed, dataset=dataset_sha)
    record.update(
        {
            "dataset_label": label,
            "range": [slices.start, slices.end],
            "split": extra["split"],
            "input_size": size,
        }
    )
    result["run_record"] = record
    result["seed"] = seed
    result["duration_seconds"] = clock.seconds()
    emit.progress(100, "done")
    return result
