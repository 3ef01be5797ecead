"""What the four financial handlers share: reading the envelope's extension, loading the dataset, turning
bad data into validation errors that name the field, saving the model, and the common result keys.

The server sends, beside the spec's job body, ``extension`` (``schemas/job-envelope.schema.json``): the
dataset it resolved (``dataset.path`` and its facts), ``normalization``, ``missing_values``,
``target_column`` and ``seed``. Handlers read the dataset only from ``extension.dataset.path``. When a
job comes without an extension (the CLI by hand, an older server), a shipped sample named in the body
(``samples/<file>.csv``) is read from the checkout's ``samples/`` directory; any other dataset URL is
refused, because only the server fetches URLs and checks uploads.

Defaults when the extension leaves an input out (null): normalization ``[0,1]`` and missing values
``impute_average`` (the forms' defaults, ``schemas/defs.json``), seed 42, fraud target ``Class``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pandas as pd  # type: ignore[import-untyped]

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.run_record import build_run_record, check_seed
from qmlstudio_worker.ml.artifacts import media_type, save_fitted
from qmlstudio_worker.ml.datasets import (
    DatasetError,
    DatasetFacts,
    dropped_rows_note,
    load_csv,
    require_columns,
)
from qmlstudio_worker.ml.preprocess import MISSING_VALUES, NORMALIZATIONS, MissingValues, Normalization
from qmlstudio_worker.problem_schemas import resolve_schemas_dir

if TYPE_CHECKING:
    from qmlstudio_worker.protocol import Emitter
    from qmlstudio_worker.quantum.devices import DeviceTarget

DEFAULT_SEED = 42
DEFAULT_NORMALIZATION: Normalization = "[0,1]"
DEFAULT_MISSING_VALUES: MissingValues = "impute_average"
#: The server checked the file's size already; the worker reads what it was given (uploads are <= 100 MB).
MAX_DATASET_BYTES = 1024 * 1024 * 1024
SAMPLE_PREFIX = "samples/"


@dataclass
class JobInputs:
    """A job's dataset and the preprocessing inputs that travel beside its body."""

    frame: pd.DataFrame
    facts: DatasetFacts
    path: Path
    label: str
    synthetic: bool
    seed: int
    normalization: Normalization
    missing_values: MissingValues
    target_column: str | None
    notes: list[str] = field(default_factory=list)
    #: The extension's noise model (a fake IBM device of quantum/backends.py), None for an ideal run.
    quantum_noise_model: str | None = None
    #: The owner's stored IBM Quantum token the server adds for a device run (never logged or recorded).
    ibm_token: str | None = field(default=None, repr=False)

    def dataset_summary(self, rows_used: int) -> dict[str, Any]:
        return {
            "label": self.label,
            "synthetic": self.synthetic,
            "sha256": self.facts.sha256,
            "rows_used": int(rows_used),
        }


def extension_of(ctx: JobContext) -> dict[str, Any]:
    extension = getattr(ctx, "extension", None)
    return dict(extension) if isinstance(extension, Mapping) else {}


def _sample_path(url: str) -> Path | None:
    if not url.startswith(SAMPLE_PREFIX):
        return None
    name = url[len(SAMPLE_PREFIX) :]
    if not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    return resolve_schemas_dir().parent / "samples" / name


def open_job_inputs(params: Mapping[str, Any], ctx: JobContext, url_field: str) -> JobInputs:
    """:func:`load_job_inputs` as a job starts: progress 1 "loading the dataset" first, then each of the
    inputs' notes as a warning log line."""
    ctx.emitter.progress(1, "loading the dataset")
    inputs = load_job_inputs(params, ctx, url_field)
    for note in inputs.notes:
        ctx.emitter.log(note, level="warning")
    return inputs


def load_job_inputs(params: Mapping[str, Any], ctx: JobContext, url_field: str) -> JobInputs:
    """The dataset (from ``extension.dataset.path``) and the preprocessing inputs of the job.

    ``url_field`` is the body field holding the dataset URL (``dataset``, ``dataset_url`` or ``file``):
    a dataset that cannot be read is refused naming it.
    """
    extension = extension_of(ctx)
    pointer = f"/params/{url_field}"
    dataset = extension.get("dataset")
    notes: list[str] = []
    if isinstance(dataset, Mapping) and isinstance(dataset.get("path"), str):
        path = Path(dataset["path"])
        label = str(dataset.get("label") or path.name)
        synthetic = bool(dataset.get("synthetic", False))
        expected_sha = dataset.get("sha256")
    else:
        url = str(params[url_field])
        sample = _sample_path(url)
        if sample is None:
            raise JobValidationError(
                f"The dataset {url!r} was not resolved by the server (the job carries no extension.dataset).",
                pointer,
            )
        path, label, synthetic, expected_sha = sample, sample.name, "synthetic" in sample.name, None
        notes.append(f"no extension.dataset: read the shipped sample {sample.name}")
    try:
        loaded = load_csv(path, max_bytes=MAX_DATASET_BYTES)
    except (DatasetError, OSError) as exc:
        message = exc.message if isinstance(exc, DatasetError) else f"The dataset could not be read ({exc})."
        raise JobValidationError(message, pointer) from None
    dropped = dropped_rows_note(loaded.facts)
    if dropped:
        notes.append(dropped)
    if expected_sha and expected_sha != loaded.facts.sha256:
        notes.append(
            f"the dataset's sha256 is {loaded.facts.sha256}, not {expected_sha} as the server recorded"
        )

    normalization = extension.get("normalization") or DEFAULT_NORMALIZATION
    if normalization not in NORMALIZATIONS:
        raise JobValidationError(f"Unknown normalization {normalization!r}.", "/extension/normalization")
    missing_values = extension.get("missing_values") or DEFAULT_MISSING_VALUES
    if missing_values not in MISSING_VALUES:
        raise JobValidationError(
            f"Unknown missing-values rule {missing_values!r}.", "/extension/missing_values"
        )
    try:
        seed = check_seed(extension.get("seed", DEFAULT_SEED))
    except ValueError as exc:
        raise JobValidationError(str(exc), "/extension/seed") from None
    target = extension.get("target_column")
    from qmlstudio_worker.quantum.backends import noise_model_name

    try:
        noise_model = noise_model_name(extension.get("quantum_noise_model"))
    except ValueError as exc:
        raise JobValidationError(str(exc), "/extension/quantum_noise_model") from None
    return JobInputs(
        frame=loaded.frame,
        facts=loaded.facts,
        path=path,
        label=label,
        synthetic=synthetic,
        seed=seed,
        normalization=cast(Normalization, normalization),
        missing_values=cast(MissingValues, missing_values),
        target_column=str(target) if isinstance(target, str) and target else None,
        notes=notes,
        quantum_noise_model=noise_model,
        ibm_token=str(extension["ibm_token"]) if extension.get("ibm_token") else None,
    )


def device_note(params: Mapping[str, Any]) -> str | None:
    """The body's ``device``: every model here runs on the CPU (scikit-learn has no GPU path, the networks
    and simulators are small); a GPU request is answered with a warning saying where the job ran."""
    if params.get("device") != "GPU":
        return None
    try:
        import torch

        has_gpu = bool(torch.cuda.is_available())
    except ImportError:
        has_gpu = False
    where = "a GPU is present but these models run on the CPU" if has_gpu else "this worker has no GPU"
    return f"Device GPU requested: {where}; the job ran on the CPU."


def warn_device_note(params: Mapping[str, Any], emit: Emitter) -> None:
    """Logs :func:`device_note` as a warning when the body asked for a GPU."""
    note = device_note(params)
    if note is not None:
        emit.log(note, level="warning")


#: The simulators the schema offers whose primitives are exact (no sampling); qasm_simulator samples.
EXACT_SIMULATORS = ("aer_simulator_statevector", "statevector_simulator")


def quantum_shots(
    params: Mapping[str, Any], noise_model: str | None = None, *, device_ok: bool = False
) -> int | None:
    """How a quantum model's circuits are evaluated: None (exact) on the statevector simulators without
    noise, else the body's ``quantum_shots`` (``DEFAULT_NOISY_SHOTS`` when it has none): the shot-based
    simulator samples, and a run under a noise model (the extension's, :mod:`.quantum.backends`) or on a
    real device cannot be exact. A caller without a device path (``device_ok`` False) has a device request
    refused in plain words rather than silently simulated."""
    backend = params.get("quantum_device_backend")
    on_device = params.get("use_quantum_simulator") is False
    if on_device and not device_ok:
        raise JobValidationError(
            "Running on a real IBM quantum device is not available yet: choose a simulator.",
            "/params/use_quantum_simulator",
        )
    if not on_device and noise_model is None and (backend is None or backend in EXACT_SIMULATORS):
        return None
    from qmlstudio_worker.quantum.backends import DEFAULT_NOISY_SHOTS

    # A body without the field (demand) or with stock's specified 0 takes the sampling simulators' default.
    shots = params.get("quantum_shots")
    return shots if isinstance(shots, int) and shots > 0 else DEFAULT_NOISY_SHOTS


def device_target(params: Mapping[str, Any], inputs: JobInputs | None = None) -> DeviceTarget | None:
    """The IBM device the body asks for (``use_quantum_simulator`` false), with the body's custom token, else
    the owner's stored one (the extension's ``ibm_token``); None for a simulator. In local testing mode
    (QMLSTUDIO_IBM_LOCAL_TESTING=1) the device's fake backend stands in."""
    from qmlstudio_worker.quantum.devices import DeviceTarget, local_testing_backend

    if params.get("use_quantum_simulator") is not False:
        return None
    name = params.get("quantum_device_backend")
    if not isinstance(name, str) or not name:
        raise JobValidationError("Choose the IBM device to run on.", "/params/quantum_device_backend")
    token = params.get("actual_quantum_device_token")
    if not (isinstance(token, str) and token) and inputs is not None:
        token = inputs.ibm_token
    return DeviceTarget(
        name=name,
        token=token if isinstance(token, str) and token else None,
        local_backend=local_testing_backend(name),
    )


def require_ideal_simulator(params: Mapping[str, Any], inputs: JobInputs, model: str) -> None:
    """For a model with no noisy or device path: a noise model or a device is refused in plain words,
    never silently replaced by the ideal simulator."""
    if params.get("use_quantum_simulator") is False:
        raise JobValidationError(
            f"Running on a real IBM quantum device is not available for the {model}: choose a simulator.",
            "/params/use_quantum_simulator",
        )
    if inputs.quantum_noise_model is not None:
        raise JobValidationError(
            f"Noise model {inputs.quantum_noise_model} is not available for the {model}: choose None.",
            "/extension/quantum_noise_model",
        )


def require_fields(frame: pd.DataFrame, columns: Sequence[str], pointer: str) -> None:
    """Refuse, naming them and the body field that asked for them, columns the dataset lacks."""
    try:
        require_columns(frame, columns)
    except DatasetError as exc:
        raise JobValidationError(exc.message, pointer) from None


@contextmanager
def data_errors(pointer: str | None) -> Iterator[None]:
    """ValueErrors raised while preparing or fitting on the data (a column that is not numeric, too few
    rows for the window, one class only, ...) are the data's fault: a validation error on ``pointer``."""
    try:
        yield
    except JobValidationError:
        raise
    except DatasetError as exc:
        raise JobValidationError(exc.message, pointer) from None
    except ValueError as exc:
        text = str(exc)
        raise JobValidationError(text[:1].upper() + text[1:], pointer) from None


def save_model(ctx: JobContext, fitted: Any, problem: str) -> tuple[dict[str, str], str | None]:
    """Save the fitted model into the job's output directory and announce each file as an artifact.

    Returns ({name: relative file name}, trained_model_path relative to output_dir) or ({}, None) when
    the job has no output directory."""
    out_dir = ctx.artifact_dir()
    if out_dir is None:
        return {}, None
    files = save_fitted(out_dir, fitted, problem=problem)
    for name, file_name in files.items():
        ctx.emitter.artifact(name, str(out_dir / file_name), media_type(file_name))
    return files, files.get("model")


def run_record(
    params: Mapping[str, Any], inputs: JobInputs, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    record = build_run_record(params, seed=inputs.seed, dataset=inputs.facts)
    record["preprocessing"] = {
        "normalization": inputs.normalization,
        "missing_values": inputs.missing_values,
        "target_column": inputs.target_column,
    }
    record["dataset_label"] = inputs.label
    if extra:
        record.update(dict(extra))
    return record


class Stopwatch:
    def __init__(self) -> None:
        self.started = time.monotonic()

    def seconds(self) -> float:
        return round(time.monotonic() - self.started, 3)


def base_result(
    *,
    problem: str,
    model: str,
    model_type: str,
    metrics: Mapping[str, Any],
    baseline: Mapping[str, Any] | None,
    charts: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """The contract's result keys, with the ones a problem does not have set to None."""
    return {
        "problem": problem,
        "model": model,
        "model_type": model_type,
        "metrics": {k: v for k, v in metrics.items() if v is not None},
        "baseline": dict(baseline) if baseline is not None else None,
        "charts": [dict(c) for c in charts],
        "losses": None,
        "training_data": None,
        "confusion_matrix": None,
        "prediction": None,
        "selection": None,
        "artifacts": {},
        "trained_model_path": None,
    }
