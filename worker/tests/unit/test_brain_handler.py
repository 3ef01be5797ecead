"""The "brain-tumor" job end to end through runner.run_job on a generated .mat file of 24 synthetic slices
(8 patients, 3 slices each): result keys, metrics beside the majority baseline, history, charts, the saved
bundle predicting, the patient split, and the refusals (models not built, bad range, too many qubits)."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from qmlstudio_worker.jobs.runner import run_job
from qmlstudio_worker.problems.brain_tumor.image_input import to_model_input
from qmlstudio_worker.problems.brain_tumor.mat_data import MriSlice, open_mat_dataset
from qmlstudio_worker.problems.brain_tumor.mat_write import write_struct_array
from qmlstudio_worker.problems.brain_tumor.model_store import load_bundle
from qmlstudio_worker.problems.brain_tumor.models import NOT_BUILT_MODELS
from qmlstudio_worker.problems.brain_tumor.synthetic_mri import make_patient, render_slice
from qmlstudio_worker.problems.brain_tumor.training import split_positions
from qmlstudio_worker.protocol import EXIT_OK, EXIT_VALIDATION_ERROR, Emitter

CLASSES = ["meningioma", "glioma", "pituitary"]


@pytest.fixture(scope="module")
def mat_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(7)
    items = []
    for p in range(8):
        label = p % 3 + 1
        patient = make_patient(rng, label, f"SYN-T{p}")
        for level in (-0.3, 0.0, 0.3):
            drawn = render_slice(patient, rng, 48, level)
            items.append(MriSlice(drawn.image, label, patient.pid, drawn.border, drawn.mask))
    path = tmp_path_factory.mktemp("mat") / "tiny_synthetic.mat"
    write_struct_array(path, items)
    return path


def body(model: str, **changes: Any) -> dict[str, Any]:
    quantum = model in ("QCNN", "QSVM", "QGANs", "QVAE", "QBMs")
    out: dict[str, Any] = {
        "id": 5,
        "batch_size": 8,
        "epochs": 2,
        "learning_rate": 0.01,
        "optimizer": "adam",
        "training_model_type": "quantum" if quantum else "classical",
        "model_name": model,
        "loss_function": "sparse_categorical_crossentropy",
    }
    if quantum:
        out.update(
            n_qubits=4,
            circuit_depth=1,
            patch_size=2,
            n_layers=1,
            units_per_layer=64,
            activations="relu",
            dropout_rates=0.2,
        )
    out.update(changes)
    return out


def run(
    params: dict[str, Any], mat: Path, out_dir: Path | None, **extension: Any
) -> tuple[int, list[dict[str, Any]]]:
    ext: dict[str, Any] = {
        "dataset": {
            "path": str(mat),
            "label": "tiny (synthetic)",
            "synthetic": True,
            "sha256": hashlib.sha256(mat.read_bytes()).hexdigest(),
            "row_count": 24,
            "columns": [],
        },
        "range": {"start": 1, "end": 24},
        "split": "stratified",
        "seed": 42,
    }
    ext.update(extension)
    envelope: dict[str, Any] = {"kind": "brain-tumor", "job_id": "9", "params": params, "extension": ext}
    if out_dir is not None:
        envelope["output_dir"] = str(out_dir)
    stream = io.StringIO()
    code = run_job(json.dumps(envelope), Emitter(stream))
    return code, [json.loads(line) for line in stream.getvalue().splitlines()]


def result_of(code: int, lines: list[dict[str, Any]]) -> dict[str, Any]:
    assert code == EXIT_OK, lines[-1]
    data: dict[str, Any] = lines[-1]["data"]
    return data


def error_of(code: int, lines: list[dict[str, Any]]) -> dict[str, Any]:
    assert code == EXIT_VALIDATION_ERROR, lines[-1]
    assert lines[-1]["type"] == "error"
    return lines[-1]


def test_a_classical_run_reports_metrics_history_charts_and_saves_a_bundle(
    mat_file: Path, tmp_path: Path
) -> None:
    data = result_of(*run(body("FCN"), mat_file, tmp_path))
    assert data["problem"] == "brain-tumor"
    assert data["trained_model_type"] == "FCN"
    assert data["model_type"] == "Classical"
    metrics = data["metrics"]
    assert set(metrics) == {"accuracy", "macro_f1"} | {
        f"{kind}_{c}" for kind in ("precision", "recall", "f1") for c in CLASSES
    }
    assert data["baseline"]["name"] == "Majority class"
    # stratified: 24 slices of 3 classes (9/9/6) -> 2 + 2 + 1 held out; the majority class is right on 2 of 5
    held = data["training_data"]["held_out_slices"]
    assert (data["training_data"]["train_slices"], held) == (19, 5)
    assert data["baseline"]["metrics"]["accuracy"] == pytest.approx(2 / 5)
    history = data["output_data"]["training_history"]
    assert data["output_data"]["result_type"] == "Training"
    assert {k: len(v) for k, v in history.items()} == {
        "loss": 2,
        "accuracy": 2,
        "val_accuracy": 2,
        "val_loss": 2,
    }
    assert [c["title"] for c in data["charts"]] == [
        "Loss over Epochs",
        "Accuracy vs Validation Accuracy",
        "Confusion Matrix",
    ]
    assert sum(map(sum, data["confusion_matrix"])) == held
    assert data["final_metrics"] == metrics
    assert data["dataset"]["synthetic"] is True

    # the bundle: the model saved with its preprocessing predicts the held-out accuracy it reported
    assert data["trained_model_path"] == "model.json"
    model = load_bundle(tmp_path / data["trained_model_path"])
    assert (model.model_name, model.input_size, model.classes) == ("FCN", 64, CLASSES)
    with open_mat_dataset(mat_file) as ds:
        images = [s.image for s in ds.images(range(24))]
        labels = (ds.labels() - 1).tolist()
        pids = ds.pids()
    proba = model.predict_proba(to_model_input(images, model.input_size))
    assert proba.shape == (24, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-6)
    _, held_positions = split_positions("stratified", labels, pids, 42)
    predicted = proba.argmax(axis=1)[held_positions]
    assert (predicted == np.asarray(labels)[held_positions]).mean() == pytest.approx(metrics["accuracy"])

    code, lines = run(body("FCN"), mat_file, None)
    assert _lines_of_type(lines, "artifact") == []  # no output directory: nothing saved or announced
    assert result_of(code, lines)["metrics"] == metrics  # same data, settings and seed: same metrics


def _lines_of_type(lines: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["type"] == kind]


def test_a_qcnn_run_with_the_patient_split_keeps_patients_apart(mat_file: Path, tmp_path: Path) -> None:
    data = result_of(*run(body("QCNN"), mat_file, tmp_path, split="patient"))
    assert data["model_type"] == "Quantum"
    assert data["training_data"]["split"] == "patient"
    # whole patients of 3 slices each are held out
    assert data["training_data"]["held_out_slices"] % 3 == 0
    model = load_bundle(tmp_path / "model.json")
    assert (model.model_name, model.model_type, model.input_size) == ("QCNN", "quantum", 32)
    assert model.config["n_qubits"] == 4


def test_a_qsvm_run_saves_a_kernel_model_that_predicts(mat_file: Path, tmp_path: Path) -> None:
    data = result_of(*run(body("QSVM", epochs=1), mat_file, tmp_path))
    assert data["trained_model_type"] == "QSVM"
    model = load_bundle(tmp_path / "model.json")
    proba = model.predict_proba(to_model_input([np.random.default_rng(0).random((48, 48))], 64))
    assert proba.shape == (1, 3)


@pytest.mark.parametrize("name", sorted(NOT_BUILT_MODELS))
def test_models_not_built_are_refused_with_the_reason(name: str, mat_file: Path) -> None:
    error = error_of(*run(body(name), mat_file, None))
    assert error["field"] == "/params/model_name"
    assert error["message"] == NOT_BUILT_MODELS[name]


def test_a_classical_model_asked_as_quantum_is_refused(mat_file: Path) -> None:
    error = error_of(*run(body("QCNN", training_model_type="classical"), mat_file, None))
    assert error["field"] == "/params/model_name"
    assert "not a classical model" in error["message"]


def test_a_range_past_the_dataset_is_refused_naming_the_range(mat_file: Path) -> None:
    error = error_of(*run(body("FCN"), mat_file, None, range={"start": 1, "end": 30}))
    assert error["field"] == "/extension/range"
    assert "must not exceed 24" in error["message"]


def test_twenty_qubits_are_refused_with_what_fits(mat_file: Path) -> None:
    error = error_of(*run(body("QCNN", n_qubits=20), mat_file, None))
    assert error["field"] == "/params/n_qubits"
    assert "use 4 or 10 on this machine" in error["message"]


def test_a_file_that_is_not_a_mat_file_is_refused_with_the_parse_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mat"
    bad.write_bytes(b"not a matlab file at all" * 10)
    error = error_of(*run(body("FCN"), bad, None))
    assert error["field"] == "/extension/dataset"
    assert error["message"].startswith("Error parsing file: ")


@pytest.mark.parametrize("name", ["densenet121", "3D_CNNs"])
def test_densenet_and_the_3d_cnn_train_and_their_bundles_read_single_slices(
    name: str, mat_file: Path, tmp_path: Path
) -> None:
    data = result_of(*run(body(name, epochs=1), mat_file, tmp_path))
    assert data["trained_model_type"] == name
    assert data["training_data"]["input_size"] == 64
    if name == "densenet121":  # no weights file configured here: said so
        assert data["training_data"]["weights"].startswith("random initialization")
    model = load_bundle(tmp_path / "model.json")
    assert model.predict_proba(to_model_input([np.ones((48, 48))], 64)).shape == (1, 3)


def test_the_3d_cnn_stacks_each_slice_with_its_own_patient_s_neighbours(mat_file: Path) -> None:
    from qmlstudio_worker.problems.brain_tumor.training import model_inputs

    with open_mat_dataset(mat_file) as ds:
        pids = ds.pids()
        stacks = model_inputs(ds, [0, 1, 2, 3], 64, stacks=True, pids=pids)
        flat = model_inputs(ds, [0, 1, 2, 3], 64, stacks=False, pids=pids)
    assert stacks.shape == (4, 1, 3, 64, 64)
    # slice 1 (index 0) is its patient's first: before it, itself again; slice 3 is the last of patient 0
    assert torch.equal(stacks[0, 0, 0], flat[0, 0])
    assert torch.equal(stacks[0, 0, 2], flat[1, 0])
    assert torch.equal(stacks[2, 0, 0], flat[1, 0])
    assert torch.equal(stacks[2, 0, 2], flat[2, 0])  # slice 4 belongs to the next patient
    assert torch.equal(stacks[3, 0, 1], flat[3, 0])
