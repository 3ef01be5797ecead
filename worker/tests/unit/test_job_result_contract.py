"""Every handler's result on small real runs against schemas/results/job-result.schema.json.

The server reads an output's result only through that schema (its TypeScript twin is
src/generated/job-result.ts, read by server/outputs/job-result.ts): each problem's handler, with a
classical and a quantum model, ideal and under a noise model, must write a result line that validates
against definitions/trainingResult, and the predict command's answer against
definitions/workerPrediction. Runs are kept small (few epochs, iterations and rows); they train for real.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import REPO_ROOT, dataset_entry, fraud_blobs
from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

from qmlstudio_worker.jobs.runner import run_job
from qmlstudio_worker.protocol import EXIT_OK, Emitter

RESULT_SCHEMA_PATH = REPO_ROOT / "schemas" / "results" / "job-result.schema.json"
SAMPLES = REPO_ROOT / "samples"
FIXTURES = REPO_ROOT / "src" / "generated" / "fixtures"


def _resource(path: Path) -> Resource[Any]:
    return Resource.from_contents(json.loads(path.read_text(encoding="utf-8")), default_specification=DRAFT7)


def _retrieve(uri: str) -> Resource[Any]:
    # The result schema refers to the protocol's chart definition by a path relative to itself.
    return _resource(Path(uri.removeprefix("file://")))


def validator_for(definition: str) -> Draft7Validator:
    uri = RESULT_SCHEMA_PATH.as_uri()
    Draft7Validator.check_schema(json.loads(RESULT_SCHEMA_PATH.read_text(encoding="utf-8")))
    registry: Registry[Any] = Registry(retrieve=_retrieve).with_resource(uri, _resource(RESULT_SCHEMA_PATH))
    return Draft7Validator({"$ref": f"{uri}#/definitions/{definition}"}, registry=registry)


@pytest.fixture(scope="module")
def training_result() -> Draft7Validator:
    return validator_for("trainingResult")


def assert_valid(validator: Draft7Validator, data: dict[str, Any]) -> None:
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    assert not errors, [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"[:300] for e in errors]


def example_body(problem: str, model_type: str, **changes: Any) -> dict[str, Any]:
    requests = json.loads((FIXTURES / f"{problem}.job-requests.json").read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == f"example with model_type {model_type}"]
    return {**request["body"], **changes}


def run(
    kind: str, body: dict[str, Any], dataset: Path | dict[str, Any], out_dir: Path, **extension: Any
) -> dict[str, Any]:
    ext: dict[str, Any] = {
        "dataset": dataset if isinstance(dataset, dict) else dataset_entry(dataset),
        "normalization": "[0,1]",
        "missing_values": "impute_average",
        "target_column": None,
        "seed": 42,
        **extension,
    }
    envelope = {"kind": kind, "job_id": "3", "params": body, "extension": ext, "output_dir": str(out_dir)}
    stream = io.StringIO()
    code = run_job(json.dumps(envelope), Emitter(stream))
    last = json.loads(stream.getvalue().splitlines()[-1])
    assert code == EXIT_OK, last
    data: dict[str, Any] = last["data"]
    return data


@pytest.fixture(scope="module")
def fraud_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fraud") / "fraud_blobs.csv"
    fraud_blobs(240).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def stops_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stops") / "stops.csv"
    rows = ["id,latitude,longitude,demand", "1,52.52,13.40,0", "2,52.53,13.42,30", "3,52.50,13.38,40"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def mat_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_mat(tmp_path_factory.mktemp("mat"))


def tiny_mat(folder: Path) -> Path:
    """18 synthetic 32-pixel slices of 6 patients, 3 classes, as a .mat file in ``folder``."""
    from qmlstudio_worker.problems.brain_tumor.mat_data import MriSlice
    from qmlstudio_worker.problems.brain_tumor.mat_write import write_struct_array
    from qmlstudio_worker.problems.brain_tumor.synthetic_mri import make_patient, render_slice

    rng = np.random.default_rng(7)
    items = []
    for p in range(6):
        patient = make_patient(rng, p % 3 + 1, f"SYN-R{p}")
        for level in (-0.3, 0.0, 0.3):
            drawn = render_slice(patient, rng, 32, level)
            items.append(MriSlice(drawn.image, p % 3 + 1, patient.pid, drawn.border, drawn.mask))
    path = folder / "tiny.mat"
    write_struct_array(path, items)
    return path


def brain_body(model: str, epochs: int = 1) -> dict[str, Any]:
    quantum = model == "QCNN"
    body: dict[str, Any] = {
        "id": 5,
        "batch_size": 8,
        "epochs": epochs,
        "learning_rate": 0.01,
        "optimizer": "adam",
        "training_model_type": "quantum" if quantum else "classical",
        "model_name": model,
        "loss_function": "sparse_categorical_crossentropy",
    }
    if quantum:
        body.update(n_qubits=4, circuit_depth=1, patch_size=2, n_layers=1, units_per_layer=64)
        body.update(activations="relu", dropout_rates=0.2)
    return body


def brain_run(model: str, mat: Path, out_dir: Path, epochs: int = 1, **extension: Any) -> dict[str, Any]:
    sha256 = hashlib.sha256(mat.read_bytes()).hexdigest()
    entry = {
        "path": str(mat),
        "label": mat.name,
        "synthetic": True,
        "sha256": sha256,
        "row_count": 18,
        "columns": [],
    }
    return run(
        "brain-tumor",
        brain_body(model, epochs),
        entry,
        out_dir,
        range={"start": 1, "end": 18},
        split="stratified",
        **extension,
    )


Case = Callable[[Path, dict[str, Path]], dict[str, Any]]

CASES: dict[str, tuple[Case, bool]] = {
    "stock LSTM": (
        lambda out, data: run(
            "stock-price-prediction",
            example_body("stock-price-prediction", "Classical", epochs=5, hidden_layers=4, to_index=60),
            SAMPLES / "apple_google_stock.csv",
            out,
        ),
        False,
    ),
    "stock hybrid quantum": (
        lambda out, data: run(
            "stock-price-prediction",
            example_body("stock-price-prediction", "Quantum", epochs=5, to_index=60),
            SAMPLES / "apple_google_stock.csv",
            out,
        ),
        True,
    ),
    "fraud logistic regression": (
        lambda out, data: run(
            "fraud-detection",
            example_body("fraud-detection", "Classical", model="Logistic Regression"),
            data["fraud"],
            out,
            target_column="Class",
        ),
        False,
    ),
    "fraud VQC": (
        lambda out, data: run(
            "fraud-detection",
            example_body("fraud-detection", "Quantum", optimizer_alg_maxiter=3, circuit_repetition=1),
            data["fraud"],
            out,
            target_column="Class",
        ),
        True,
    ),
    "portfolio exact": (
        lambda out, data: run(
            "portfolio-optimization",
            example_body("portfolio-optimization", "Classical"),
            SAMPLES / "five_companies_stock.csv",
            out,
        ),
        False,
    ),
    "portfolio VQE under a noise model": (
        lambda out, data: run(
            "portfolio-optimization",
            example_body("portfolio-optimization", "Quantum", optimizer_alg_maxiter=3),
            SAMPLES / "five_companies_stock.csv",
            out,
            quantum_noise_model="fake_kyiv",
        ),
        True,
    ),
    "vehicle routing QAOA": (
        lambda out, data: run(
            "vehicle-routing",
            example_body("vehicle-routing", "Quantum", optimizer_alg_maxiter=5, circuit_repetition=1),
            data["stops"],
            out,
        ),
        True,
    ),
    "brain tumor FCN": (lambda out, data: brain_run("FCN", data["mat"], out), False),
    "brain tumor QCNN": (lambda out, data: brain_run("QCNN", data["mat"], out), True),
    # Repeated seeds: each seed's curves and confusion matrices in the repeats block.
    "brain tumor FCN, 2 repeats": (lambda out, data: brain_run("FCN", data["mat"], out, 2, repeats=2), False),
    "portfolio VQE, 2 repeats": (
        lambda out, data: run(
            "portfolio-optimization",
            example_body("portfolio-optimization", "Quantum", optimizer_alg_maxiter=3),
            SAMPLES / "five_companies_stock.csv",
            out,
            repeats=2,
        ),
        True,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_handlers_result_follows_the_result_contract(
    case: str,
    tmp_path: Path,
    training_result: Draft7Validator,
    fraud_csv: Path,
    stops_csv: Path,
    mat_file: Path,
) -> None:
    produce, quantum = CASES[case]
    data = produce(tmp_path, {"fraud": fraud_csv, "stops": stops_csv, "mat": mat_file})
    assert_valid(training_result, data)
    # Where the circuits ran is one typed key for every quantum run, and absent for a classical one.
    assert data["model_type"] == ("Quantum" if quantum else "Classical")
    if quantum:
        assert data["quantum_run"]["simulation"]
        assert data["quantum_run"]["measured_after_training"] in (
            "test predictions",
            "the final circuit measured",
        )
    else:
        assert data.get("quantum_run") is None


def test_a_noisy_runs_backend_summary_is_typed(tmp_path: Path, training_result: Draft7Validator) -> None:
    data = CASES["portfolio VQE under a noise model"][0](tmp_path, {})
    backend = data["quantum_run"]["backend_run"]
    assert (backend["noise_model"], data["quantum_run"]["noise_model"]) == ("fake_kyiv", "fake_kyiv")
    assert backend["circuits_run"] >= 1
    # the contract refuses what the server could not read: a backend run without its counts typed as such
    broken = {
        **data,
        "quantum_run": {**data["quantum_run"], "backend_run": {**backend, "circuits_run": "many"}},
    }
    assert not training_result.is_valid(broken)


def test_the_contract_refuses_a_result_the_server_could_not_read(training_result: Draft7Validator) -> None:
    result = {
        "problem": "x",
        "model": "LSTM",
        "model_type": "Classical",
        "metrics": {"rmse": 1.0},
        "baseline": {"name": "persistence", "metrics": {"rmse": 2.0}},
        "charts": [],
        "losses": None,
        "confusion_matrix": None,
        "artifacts": {},
        "trained_model_path": None,
        "dataset": {"label": "x.csv", "synthetic": False, "sha256": "0" * 64, "rows_used": 10},
        "run_record": {
            "config": {},
            "dataset_sha256": "0" * 64,
            "seed": 1,
            "versions": {},
            "machine": {},
            "recorded_at": "2026-01-01T00:00:00Z",
        },
        "seed": 1,
        "duration_seconds": 1.0,
    }
    assert training_result.is_valid(result)
    assert not training_result.is_valid({**result, "metrics": {"rmse": "1.0"}})
    assert not training_result.is_valid({**result, "model_type": "quantum"})
    assert not training_result.is_valid({k: v for k, v in result.items() if k != "dataset"})
    assert not training_result.is_valid({**result, "unnamed_key": 1})


def test_the_predict_commands_answer_follows_the_contract(tmp_path: Path) -> None:
    import torch
    from PIL import Image

    from qmlstudio_worker.problems.brain_tumor.model_store import save_bundle
    from qmlstudio_worker.problems.brain_tumor.models import build_model
    from qmlstudio_worker.problems.brain_tumor.predict import predict
    from qmlstudio_worker.problems.brain_tumor.synthetic_mri import make_patient, render_slice

    torch.manual_seed(0)
    classes = ["meningioma", "glioma", "pituitary"]
    save_bundle(
        tmp_path,
        model_name="FCN",
        model_type="classical",
        model=build_model("FCN"),
        config={},
        input_size=32,
        classes=classes,
    )
    rng = np.random.default_rng(3)
    pixels = render_slice(make_patient(rng, 2, "SYN-P"), rng, 256, 0.0).image
    scaled = (255 * (pixels - pixels.min()) / max(float(np.ptp(pixels)), 1e-9)).astype(np.uint8)
    image = tmp_path / "slice.png"
    Image.fromarray(scaled).save(image)
    answer = predict(image, tmp_path, "slice.png")
    assert_valid(validator_for("workerPrediction"), answer)
    assert answer["prediction"] in classes
