"""The "fraud-detection" job: a classifier of the target column (default ``Class``; the envelope's
``extension.target_column`` when the form names another) from every other column.

Body (``schemas/problems/fraud-detection.json`` job.bodySchema): ``model`` SVM, Random Forest, Logistic
Regression, Gradient Boosting or Neural Network trains that scikit-learn classifier
(:mod:`qmlstudio_worker.ml.classification`: class imbalance handled with balanced class or sample weights);
``Variational Quantum Classifier`` trains the quantum classifier of ``quantum.variational_classifier`` with
``pqc``, ``circuit_repetition``, ``optimizer_alg``, ``optimizer_alg_maxiter`` and ``quantum_shots``;
``Quantum Support Vector Classifier`` trains ``quantum.kernel_classifier`` (a ZZ-feature-map fidelity
kernel with ``circuit_repetition`` reps in a class-weighted SVM; ``quantum_shots`` samples the kernel; under
a noise model or on a device the kernel is measured on circuits, rows capped and said in the config).
Split stratified with ``test_ratio`` as the test share (seeded); normalization and missing values from
the extension, fitted on the training part only. Metrics (accuracy, precision, recall, F1 as ``f1`` and
the spec's ``fMeasure``, ROC-AUC, PR-AUC) next to the majority-class baseline on the same test rows;
charts: confusion matrices, ROC and PR curves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.run_record import seed_everything
from qmlstudio_worker.jobs.support import (
    Stopwatch,
    base_result,
    data_errors,
    device_target,
    open_job_inputs,
    quantum_shots,
    require_fields,
    run_record,
    save_model,
    warn_device_note,
)
from qmlstudio_worker.ml.classification import CLASSICAL_MODELS, DEFAULT_TARGET, train_classifier
from qmlstudio_worker.ml.preprocess import prepare_classification
from qmlstudio_worker.quantum.run_facts import TEST_PREDICTIONS, quantum_run

PROBLEM = "fraud-detection"
QUANTUM_MODEL = "Variational Quantum Classifier"
QSVC_MODEL = "Quantum Support Vector Classifier"
#: The model family each quantum choice runs (the resource estimate builds what the job runs from it).
ESTIMATE_MODELS = {QUANTUM_MODEL: QUANTUM_MODEL, QSVC_MODEL: QSVC_MODEL}


def _with_f1(metrics: dict[str, Any]) -> dict[str, Any]:
    out = dict(metrics)
    if "fMeasure" in out and "f1" not in out:
        out["f1"] = out["fMeasure"]
    if "f1" in out and "fMeasure" not in out:
        out["fMeasure"] = out["f1"]
    return out


def confusion_from_chart(chart: dict[str, Any], positive: Any) -> list[list[int]] | None:
    """[[tn, fp], [fn, tp]] from a confusion-matrix chart (rows: true class, columns: predicted)."""
    names = [str(c) for c in chart.get("categories", [])]
    if len(names) != 2 or str(positive) not in names:
        return None
    p = names.index(str(positive))
    n = 1 - p
    rows = [list(s["data"]) for s in chart["series"]]
    return [[int(rows[n][n]), int(rows[n][p])], [int(rows[p][n]), int(rows[p][p])]]


def _train_quantum(
    params: dict[str, Any], frame: Any, target: str, inputs: Any, emit: Any, recall_target: float | None
) -> Any:
    # Imported here: a classical run never pays for the quantum modules.
    from qmlstudio_worker.quantum.kernel_classifier import train_kernel_classifier
    from qmlstudio_worker.quantum.variational_classifier import train_variational_classifier

    shots = quantum_shots(params, inputs.quantum_noise_model, device_ok=True)
    prepared = prepare_classification(
        frame,
        target,
        test_ratio=float(params["test_ratio"]),
        normalization=inputs.normalization,
        missing_values=inputs.missing_values,
        seed=inputs.seed,
    )
    if params["model"] == QSVC_MODEL:
        return train_kernel_classifier(
            x_train=prepared.x_train,
            y_train=prepared.y_train,
            x_test=prepared.x_test,
            y_test=prepared.y_test,
            prepared=prepared,
            target=target,
            reps=int(params["circuit_repetition"]),
            shots=shots,
            noise_model=inputs.quantum_noise_model,
            device=device_target(params, inputs),
            seed=inputs.seed,
            recall_target=recall_target,
            emit=emit,
        )
    return train_variational_classifier(
        x_train=prepared.x_train,
        y_train=prepared.y_train,
        x_test=prepared.x_test,
        y_test=prepared.y_test,
        prepared=prepared,
        target=target,
        pqc=params["pqc"],
        reps=int(params["circuit_repetition"]),
        optimizer=params["optimizer_alg"],
        maxiter=int(params["optimizer_alg_maxiter"]),
        shots=shots,
        noise_model=inputs.quantum_noise_model,
        device=device_target(params, inputs),
        seed=inputs.seed,
        recall_target=recall_target,
        emit=emit,
    )


def run(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    emit = ctx.emitter
    clock = Stopwatch()
    inputs = open_job_inputs(params, ctx, "dataset_url")
    warn_device_note(params, emit)
    target = inputs.target_column or DEFAULT_TARGET
    require_fields(inputs.frame, [target], "/extension/target_column")
    model = str(params["model"])
    quantum = model in (QUANTUM_MODEL, QSVC_MODEL)
    emit.log(
        f"{PROBLEM}: {inputs.label} ({len(inputs.frame)} rows), target {target}, model {model}, "
        f"test share {params['test_ratio']}; normalization {inputs.normalization}, "
        f"missing values {inputs.missing_values}, seed {inputs.seed}"
    )
    seed_everything(inputs.seed)
    with data_errors(None):
        if quantum:
            trained, fitted = _train_quantum(
                params, inputs.frame, target, inputs, emit, ctx.extension.get("recall_target")
            )
        elif model in CLASSICAL_MODELS:
            trained, fitted = train_classifier(
                inputs.frame,
                model=model,
                test_ratio=float(params["test_ratio"]),
                target=target,
                normalization=inputs.normalization,
                missing_values=inputs.missing_values,
                seed=inputs.seed,
                recall_target=ctx.extension.get("recall_target"),
                emit=emit,
            )
        else:  # the body schema's enum keeps this out
            raise ValueError(f"unknown model {model!r}")
    trained = dict(trained)
    raw_baseline = dict(trained.get("baseline") or {})
    baseline_name = str(raw_baseline.pop("name", "majority class"))
    baseline_metrics = raw_baseline.get("metrics", raw_baseline)
    result = base_result(
        problem=PROBLEM,
        model=str(trained.get("model") or model),
        model_type="Quantum" if quantum else "Classical",
        metrics=_with_f1(dict(trained.get("metrics") or {})),
        baseline={"name": baseline_name, "metrics": _with_f1(dict(baseline_metrics))},
        charts=trained.get("charts") or [],
    )
    if "f1" in result["metrics"]:  # the contract's name beside the spec's fMeasure, live as well
        emit.metric("f1", result["metrics"]["f1"])
    if result["baseline"] is not None and "f1" in result["baseline"]["metrics"]:
        emit.metric("baseline_f1", result["baseline"]["metrics"]["f1"])
    data = dict(trained.get("data") or {})
    positive = data.get("positive_class", getattr(fitted, "positive", 1))
    matrix = trained.get("confusion_matrix")
    if matrix is None:
        charts = [c for c in result["charts"] if c.get("type") == "confusion_matrix"]
        matrix = confusion_from_chart(charts[0], positive) if charts else None
    result["confusion_matrix"] = matrix
    estimator = getattr(fitted, "estimator", None)
    curve = getattr(estimator, "loss_curve_", None)
    if curve is None:
        curve = getattr(estimator, "train_score_", None)
    losses = trained.get("losses")
    if losses is None and curve is not None:
        losses = {"train": [float(v) for v in np.asarray(curve)], "test": []}
    result["losses"] = losses
    result["training_data"] = {**data, "config": trained.get("config")}
    if quantum:
        result["quantum_run"] = quantum_run(trained.get("config") or {}, TEST_PREDICTIONS)
    emit.progress(96, "saving the model")
    artifacts, model_path = save_model(ctx, fitted, PROBLEM)
    result["artifacts"] = artifacts
    result["trained_model_path"] = model_path
    rows_used = int(data.get("rows_selected", len(inputs.frame))) - int(data.get("rows_removed", 0))
    if "train_rows_used" in data and "test_rows_scored" in data:
        # a quantum model trains on a capped sample (the QSVC's kernel: 600 rows, 80 under noise) and may
        # score a sample of the test rows: the rows the run used are those, not the whole file, and the
        # validation rows held out of the training part to choose the decision threshold
        threshold = data.get("threshold") or {}
        validation_rows = int(threshold.get("validation_rows") or 0)
        rows_used = int(data["train_rows_used"]) + validation_rows + int(data["test_rows_scored"])
    result["dataset"] = inputs.dataset_summary(rows_used)
    result["run_record"] = run_record(params, inputs, {"model": model, "target_column": target})
    result["seed"] = inputs.seed
    result["duration_seconds"] = clock.seconds()
    emit.progress(100, "done")
    return result
