"""Quantum support vector classifier of a binary classification (fraud detection's "Quantum Support
Vector Classifier").

The same reduction as the VQC (:mod:`.variational_classifier`: standardize, PCA to ``qubits`` components
fitted on the training part, component z-scores mapped onto small angles) feeds Qiskit's ZZ feature map with
``circuit_repetition`` reps. The kernel is the fidelity kernel of qiskit-machine-learning's
``FidelityQuantumKernel`` (compute-uncompute): K(x, y) = |<phi(x)|phi(y)>|^2, the probability of measuring
all zeros after U(x) then U(y)^dagger. It is computed exactly from the feature-map statevectors of
:func:`.statevector.zz_feature_map_states` (one matrix product for all pairs); with ``shots`` every entry
is instead estimated from that many measurements (binomial sampling, seeded; the training kernel's
diagonal is 1 and it is kept symmetric, as qiskit-ml does). scikit-learn's ``SVC(kernel="precomputed",
class_weight="balanced")`` then learns on it, so the rare fraud class weighs as much as the rest.

The kernel has one entry per pair of training rows, so training uses at most ``MAX_KERNEL_ROWS`` rows:
every fraud row and a seeded sample of the others (the result records the rows used).

Under a noise model or on an IBM device (:func:`.backends.prepare_runner`, the one place execution is
chosen) every kernel entry is one real circuit: the compute-uncompute circuit U(x) U(y)^dagger, transpiled
for the device, whose measured all-zeros share is K(x, y). That is one circuit per pair, so the training
kernel uses at most ``MAX_NOISY_KERNEL_ROWS`` rows (fraud rows up to half, a seeded sample of the rest;
80 rows = 3,160 circuits) and the test rows scored are a seeded stratified sample of at most
``MAX_NOISY_TEST_ROWS``, each measured against the support vectors only (the margin needs no other entry).
The measured training kernel is made symmetric by construction (one circuit per pair, diagonal 1) and
projected onto the positive semidefinite matrices (negative eigenvalues clipped to 0, as qiskit-ml's
``enforce_psd``), since noise can break the SVM's assumption. Both caps are logged and in the result's
config. The saved model predicts with the exact kernel (the device's noise is not saved with it).

The fraud score is the logistic of the SVM margin (monotone, so ROC and PR curves are those of the
margin; not a calibrated probability). On the simulator the decision threshold on that score is chosen as
the other fraud models choose theirs (:mod:`qmlstudio_worker.ml.decision_threshold`): a stratified quarter
of the training rows is held out from the kernel and the SVM, and its scores (the SVM's decision function
against the support vectors, computed as the test rows' are) choose the threshold with the best F1, or the
best precision that reaches the Recall Target. Under a noise model or on a device (capped, measured rows)
nothing is held out and a row is fraud when its margin is >= 0 (score 0.5).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from qmlstudio_worker.ml.binary_report import binary_data_facts, binary_labels, evaluated_part, score_binary
from qmlstudio_worker.ml.classification import (
    threshold_report,
)
from qmlstudio_worker.ml.decision_threshold import VALIDATION_SHARE as THRESHOLD_SHARE
from qmlstudio_worker.ml.decision_threshold import choose_threshold
from qmlstudio_worker.ml.preprocess import MinMaxNormalizer, PreparedData, stratified_split
from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum.backends import CircuitRunner, prepare_runner
from qmlstudio_worker.quantum.statevector import circuit_summary, qiskit_feature_map, zz_feature_map_states
from qmlstudio_worker.quantum.variational_classifier import (
    DEFAULT_QUBITS,
    FittedVQC,
    VQCPredictor,
    _training_rows,
    preprocessing_from_card,
    read_model_card,
)

if TYPE_CHECKING:
    from qmlstudio_worker.quantum.devices import DeviceTarget

MODEL = "Quantum Support Vector Classifier"
FRAMEWORK = "qiskit-kernel"
MAX_KERNEL_ROWS = 600
#: Under a noise model or on a device one circuit runs per kernel entry: 80 rows = 3,160 training circuits.
MAX_NOISY_KERNEL_ROWS = 80
#: Test rows scored under a noise model or on a device (seeded, stratified): each costs one circuit per
#: support vector (about 57-69 of 80 rows): 150 rows are about 10,000 circuits. Measured on the fraud sample
#: (fake_kyiv, 4 qubits, reps 2, 1024 shots, 2 cores shared with other jobs): 4-5 ms per circuit, 14.8 s for
#: the 3,160 training circuits + 42.4 s for 150 x 69 test circuits, 60.7 s for the job (was 463 s at 35 ms
#: per circuit); the caps stay where they are, at the 60 s target.
MAX_NOISY_TEST_ROWS = 150
#: Each class's least share of that sample: fraud is over-represented (said in the result's config).
MIN_CLASS_SHARE = 0.2
SIMULATION = "exact statevector fidelity kernel (torch, complex128)"

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def fidelity_kernel(
    left: FloatArray,
    right: FloatArray,
    reps: int,
    shots: int | None = None,
    rng: np.random.Generator | None = None,
    symmetric: bool = False,
) -> FloatArray:
    """K[i, j] = |<phi(left_i)|phi(right_j)>|^2 for ZZ-feature-map angles ``left`` (rows, qubits) and
    ``right``; with ``shots``, each entry sampled from that many measurements. ``symmetric`` (left is
    right, the training kernel): the diagonal is 1 and the sampled matrix stays symmetric."""
    a = zz_feature_map_states(left, reps)
    b = a if symmetric else zz_feature_map_states(right, reps)
    overlap = a.conj() @ b.T
    exact = np.clip((overlap.abs() ** 2).numpy(), 0.0, 1.0)
    if shots is None:
        kernel = exact
    else:
        generator = rng if rng is not None else np.random.default_rng(0)
        kernel = generator.binomial(shots, exact) / shots
        if symmetric:
            upper = np.triu(kernel, 1)
            kernel = upper + upper.T
    if symmetric:
        np.fill_diagonal(kernel, 1.0)
    return np.asarray(kernel, dtype=np.float64)


def kernel_evaluations(train_rows: int, test_rows: int, measured: bool) -> tuple[int, int, int]:
    """(training rows used, test rows scored, kernel entries) of a run: the exact run holds a quarter of
    its training rows out to choose the threshold (scored like test rows), uses at most ``MAX_KERNEL_ROWS``
    of the rest and scores every test row; a measured run (noise model or device) the caps above, and its
    test entries are at most test rows x training rows (only support vectors run)."""
    if measured:
        used = min(train_rows, MAX_NOISY_KERNEL_ROWS)
        scored = min(test_rows, MAX_NOISY_TEST_ROWS)
        return used, scored, used * (used - 1) // 2 + scored * used
    held_out = int(np.ceil(train_rows * THRESHOLD_SHARE)) if train_rows >= 4 else 0
    used = min(train_rows - held_out, MAX_KERNEL_ROWS)
    return used, test_rows, used * (used - 1) // 2 + (test_rows + held_out) * used


def kernel_circuit(qubits: int, reps: int) -> tuple[Any, list[Any]]:
    """The compute-uncompute circuit U(x) then U(y)^dagger (ZZ feature map, ``reps``) and its parameter
    order: x's angles then y's (the columns of the rows a runner measures)."""
    from qiskit.circuit import ParameterVector

    feature_map = qiskit_feature_map(qubits, reps)
    other = feature_map.assign_parameters(ParameterVector("y", feature_map.num_parameters))
    return feature_map.compose(other.inverse()), [*feature_map.parameters, *other.parameters]


def measured_kernel(
    runner: CircuitRunner, left: FloatArray, right: FloatArray, symmetric: bool = False
) -> FloatArray:
    """K[i, j] = measured share of all zeros of the kernel circuit for (left_i, right_j), one circuit per
    entry; ``symmetric`` (left is right): only the pairs i < j run, the diagonal is 1 (qiskit-ml's
    ``evaluate_duplicates="off_diagonal"``)."""
    n, m = left.shape[0], right.shape[0]
    if symmetric:
        i, j = np.triu_indices(n, 1)
        kernel = np.eye(n)
        if len(i):
            zeros = runner.probabilities(np.hstack([left[i], left[j]]))[:, 0]
            kernel[i, j] = zeros
            kernel[j, i] = zeros
        return np.asarray(kernel, dtype=np.float64)
    i, j = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)
    zeros = runner.probabilities(np.hstack([left[i], right[j]]))[:, 0]
    return np.asarray(zeros.reshape(n, m), dtype=np.float64)


def nearest_psd(kernel: FloatArray) -> tuple[FloatArray, float]:
    """``kernel`` with its negative eigenvalues set to 0 (the SVM needs a PSD kernel) and the lowest
    eigenvalue before the projection."""
    values, vectors = np.linalg.eigh((kernel + kernel.T) / 2)
    projected = (vectors * np.clip(values, 0.0, None)) @ vectors.T
    return np.asarray((projected + projected.T) / 2, dtype=np.float64), float(values.min())


def noisy_kernel_rows(y: np.ndarray[Any, Any], positive: Any, cap: int, seed: int) -> np.ndarray[Any, Any]:
    """Training rows for a measured kernel: all up to ``cap``; above, fraud rows up to half of it (seeded)
    and a seeded sample of the others for the rest."""
    if len(y) <= cap:
        return np.arange(len(y))
    rng = np.random.default_rng(seed)
    positives = np.flatnonzero(y == positive)
    others = np.flatnonzero(y != positive)
    if len(positives) > cap // 2:
        positives = rng.choice(positives, size=cap // 2, replace=False)
    keep = min(cap - len(positives), len(others))
    return np.sort(np.concatenate([positives, rng.choice(others, size=keep, replace=False)]))


def stratified_sample(y: np.ndarray[Any, Any], cap: int, seed: int) -> np.ndarray[Any, Any]:
    """At most ``cap`` row positions of ``y``, seeded: every class in its share, but at least
    ``MIN_CLASS_SHARE`` of the cap (or all its rows) per class, so a rare fraud class still has enough rows
    for ROC-AUC and recall (0.5 % of 150 would be one row)."""
    if len(y) <= cap:
        return np.arange(len(y))
    rng = np.random.default_rng(seed)
    classes = [np.flatnonzero(y == value) for value in np.unique(y)]
    floor = max(1, round(cap * MIN_CLASS_SHARE))
    takes = [min(len(w), max(floor, round(cap * len(w) / len(y)))) for w in classes]
    takes[int(np.argmax(takes))] -= max(0, sum(takes) - cap)  # rounding never exceeds the cap
    chosen = [rng.choice(w, size=t, replace=False) for w, t in zip(classes, takes, strict=True)]
    return np.sort(np.concatenate(chosen))


@dataclass
class FittedQSVC(FittedVQC):
    """The VQC's preprocessing and reduction (``reps`` are the feature map's) plus the SVM's support
    vectors (as feature-map angles), dual coefficients (label 1 = fraud) and intercept."""

    support_angles: FloatArray
    dual_coef: FloatArray
    intercept: float

    def margin(self, x_normalized: FloatArray) -> FloatArray:
        kernel = fidelity_kernel(self.angles(x_normalized), self.support_angles, self.reps)
        return np.asarray(kernel @ self.dual_coef + self.intercept, dtype=np.float64)

    def positive_probability(self, x_normalized: FloatArray) -> FloatArray:
        """The logistic of the margin: >= 0.5 exactly when the SVM says fraud (a score, not calibrated)."""
        return np.asarray(1.0 / (1.0 + np.exp(-self.margin(x_normalized))), dtype=np.float64)


def _fitted_qsvc(
    x_train: FloatArray,
    n_qubits: int,
    labels: tuple[Any, Any],
    reps: int,
    prepared: PreparedData | None,
    target: str,
    seed: int,
) -> tuple[FittedQSVC, Any]:
    """The preprocessing onto ``n_qubits`` angles (standardize, PCA) as an SVM still to be fitted."""
    from sklearn.decomposition import PCA  # type: ignore[import-untyped]

    standard_mean = x_train.mean(axis=0)
    standard_scale = np.where(x_train.std(axis=0) > 0, x_train.std(axis=0), 1.0)
    standardized = (x_train - standard_mean) / standard_scale
    pca = PCA(n_components=n_qubits, svd_solver="full", random_state=seed).fit(standardized)
    component_std = pca.transform(standardized).std(axis=0)
    fitted = FittedQSVC(
        features=list(prepared.features)
        if prepared is not None
        else [f"x{i}" for i in range(x_train.shape[1])],
        target=target,
        imputer=prepared.imputer if prepared is not None else None,
        normalizer=prepared.normalizer if prepared is not None else MinMaxNormalizer("[0,1]"),
        standard_mean=standard_mean,
        standard_scale=standard_scale,
        pca_mean=np.asarray(pca.mean_, dtype=np.float64),
        pca_components=np.asarray(pca.components_, dtype=np.float64),
        component_scale=np.where(component_std > 0, component_std, 1.0),
        pqc="none",
        reps=reps,
        weights=np.zeros(0),
        positive=labels[0],
        negative=labels[1],
        support_angles=np.zeros((0, n_qubits)),
        dual_coef=np.zeros(0),
        intercept=0.0,
    )
    return fitted, pca


@dataclass(frozen=True)
class _KernelRun:
    """Where the kernel entries come from: exact, sampled with ``shots``, or measured by ``runner``."""

    runner: CircuitRunner | None
    shots: int | None
    reps: int
    rng: np.random.Generator

    def train(self, angles: FloatArray) -> tuple[FloatArray, float | None]:
        """The training kernel and, when measured, the lowest eigenvalue it had before the PSD projection."""
        if self.runner is None:
            return fidelity_kernel(angles, angles, self.reps, self.shots, self.rng, symmetric=True), None
        return nearest_psd(measured_kernel(self.runner, angles, angles, True))

    def margins(self, fitted: FittedQSVC, x_test: FloatArray) -> FloatArray:
        """The SVM's decision values of the test rows, their kernel against the support vectors computed
        as the training kernel was."""
        test_angles = fitted.angles(x_test)
        if self.runner is not None:  # on the circuits that ran
            kernel = measured_kernel(self.runner, test_angles, fitted.support_angles)
        elif self.shots is None:
            return fitted.margin(x_test)
        else:  # measured with the same shots
            kernel = fidelity_kernel(test_angles, fitted.support_angles, self.reps, self.shots, self.rng)
        return np.asarray(kernel @ fitted.dual_coef + fitted.intercept, dtype=np.float64)


def _simulation_words(runner: CircuitRunner | None, shots: int | None) -> str:
    if runner is not None:
        return f"{runner.describe()}; one compute-uncompute circuit per kernel entry"
    if shots is None:
        return SIMULATION
    return f"every kernel entry sampled with {shots} shots (training and test)"


def _fit_svm(fitted: FittedQSVC, angles: FloatArray, kernel: FloatArray, labels: Any, seed: int) -> Any:
    from sklearn.svm import SVC  # type: ignore[import-untyped]

    svc = SVC(kernel="precomputed", class_weight="balanced", random_state=seed).fit(kernel, labels)
    fitted.support_angles = np.asarray(angles[svc.support_], dtype=np.float64)
    fitted.dual_coef = np.asarray(svc.dual_coef_[0], dtype=np.float64)
    fitted.intercept = float(svc.intercept_[0])
    return svc


def train_kernel_classifier(
    x_train: FloatArray,
    y_train: np.ndarray[Any, Any],
    x_test: FloatArray,
    y_test: np.ndarray[Any, Any],
    reps: int = 2,
    seed: int = 42,
    emit: Emitter | None = None,
    shots: int | None = None,
    prepared: PreparedData | None = None,
    target: str = "Class",
    qubits: int | None = None,
    max_train_rows: int = MAX_KERNEL_ROWS,
    noise_model: str | None = None,
    device: DeviceTarget | None = None,
    max_test_rows: int = MAX_NOISY_TEST_ROWS,
    recall_target: float | None = None,
) -> tuple[dict[str, Any], FittedQSVC]:
    """Train the QSVC on the (already preprocessed) training rows of a binary classification and score it
    on the test rows next to the majority-class baseline; returns what
    :func:`.variational_classifier.train_variational_classifier` returns. On the simulator a stratified
    quarter of the training rows chooses the decision threshold (the best F1, or the best precision
    reaching ``recall_target``; module docstring)."""
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise ValueError(f"circuit repetitions must be a positive integer, got {reps!r}")
    if shots is not None and (isinstance(shots, bool) or not isinstance(shots, int) or shots < 1):
        raise ValueError(f"shots must be a positive integer or None, got {shots!r}")
    measured = noise_model is not None or device is not None
    if measured:
        max_train_rows = min(max_train_rows, MAX_NOISY_KERNEL_ROWS)
    started = time.monotonic()
    x_train, x_test = np.asarray(x_train, dtype=np.float64), np.asarray(x_test, dtype=np.float64)
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    positive, negative = binary_labels(y_train)
    n_qubits = qubits if qubits is not None else min(x_train.shape[1], DEFAULT_QUBITS)
    if not 1 <= n_qubits <= min(x_train.shape[1], 10):
        raise ValueError(f"qubits must be between 1 and min(feature count, 10), got {n_qubits}")
    if emit is not None:
        emit.progress(15, "reducing features (PCA)")
    validation = np.arange(0)
    if measured:
        rows = noisy_kernel_rows(y_train, positive, max_train_rows, seed)
    else:
        try:
            fit_part, validation = stratified_split(y_train, THRESHOLD_SHARE, seed)
        except ValueError:  # too few positive rows to hold some out: the SVM's own threshold
            fit_part = np.arange(len(y_train))
        rows = fit_part[_training_rows(y_train[fit_part], positive, max_train_rows, seed)]
    test_rows = stratified_sample(y_test, max_test_rows, seed) if measured else np.arange(len(y_test))
    y_all_test, x_test, y_test = y_test, x_test[test_rows], y_test[test_rows]
    fitted, pca = _fitted_qsvc(x_train, n_qubits, (positive, negative), reps, prepared, target, seed)
    angles = fitted.angles(x_train[rows])
    labels = (y_train[rows] == positive).astype(int)
    n_rows = len(rows)
    circuit = circuit_summary(qiskit_feature_map(n_qubits, reps))
    compute_uncompute, kernel_parameters = kernel_circuit(n_qubits, reps)
    runner = prepare_runner(
        compute_uncompute,
        kernel_parameters,
        shots=shots,
        seed=seed,
        noise_model=noise_model,
        device=device,
        emit=emit,
        percent=20,
    )
    run_shots = runner.summary()["shots"] if runner is not None else shots
    where = device.name if device is not None else noise_model
    kernel_run = (
        None
        if runner is None
        else f"kernel measured on {where} with {run_shots} shots: {n_rows} training rows, "
        f"{len(test_rows)} of {len(y_all_test):,} test rows (caps {MAX_NOISY_KERNEL_ROWS} and "
        f"{max_test_rows}: one circuit per kernel entry)"
    )
    simulation = _simulation_words(runner, shots)
    if emit is not None:
        emit.log(
            f"{MODEL}: {n_rows} training rows ({int(labels.sum())} positive) of {len(y_train)}, "
            f"{len(y_test)} of {len(y_all_test)} test rows; PCA {x_train.shape[1]} -> {n_qubits} features; "
            f"ZZ feature map (reps {reps}) fidelity kernel; {simulation}; "
            f"feature map depth {circuit['depth']}"
        )
        if kernel_run is not None:
            emit.log(f"{MODEL}: {kernel_run}; about {n_rows * (n_rows - 1) // 2:,} training circuits")
        emit.progress(25, "computing the training kernel", "executing")
    kernels = _KernelRun(runner, shots, reps, np.random.default_rng(seed))
    fit_started = time.monotonic()
    train_kernel, lowest_eigenvalue = kernels.train(angles)
    train_kernel_seconds = time.monotonic() - fit_started
    if emit is not None:
        emit.progress(50, "fitting the support vector machine")
    svc = _fit_svm(fitted, angles, train_kernel, labels, seed)
    fit_seconds = time.monotonic() - fit_started

    if emit is not None:
        emit.progress(70, "evaluating" if runner is None else "measuring the test kernel", "executing")
    test_started = time.monotonic()
    margins = kernels.margins(fitted, x_test)
    test_kernel_seconds = time.monotonic() - test_started
    if emit is not None and runner is not None:
        emit.log(
            f"{MODEL}: kernel measured in {train_kernel_seconds:.1f} s (training) + "
            f"{test_kernel_seconds:.1f} s (test, {len(y_test)} rows x {len(fitted.dual_coef)} "
            "support vectors)"
        )
        emit.progress(88, "metrics and charts", "post-processing")
    scores = 1.0 / (1.0 + np.exp(-margins))
    choice = None
    if len(validation):
        validation_scores = 1.0 / (1.0 + np.exp(-kernels.margins(fitted, x_train[validation])))
        choice = choose_threshold(y_train[validation], validation_scores, positive, recall_target)
        fitted.threshold = choice.threshold
        if emit is not None:
            emit.log(f"{MODEL}: {choice.sentence()} (the logistic of the SVM's decision function)")
    elif emit is not None:
        emit.log(f"{MODEL}: decision threshold 0.5, margin >= 0 (measured kernel, or too few positive rows)")
    scored = evaluated_part(len(y_test), len(y_all_test))
    evaluation, scoring = score_binary(
        MODEL, y_train, y_test, scores, fitted.threshold, (positive, negative), scored, choice, emit
    )
    facts = {"shots": run_shots, "seed": seed, "simulation": simulation, "kernel_run": kernel_run}
    result: dict[str, Any] = {
        "model": MODEL,
        "model_type": "Quantum",
        "config": _config(fitted, x_train.shape[1], facts, runner, noise_model, device, lowest_eigenvalue)
        | _test_rows_rule(runner, y_test, y_all_test, positive, max_test_rows),
        "data": {
            **_data_facts(
                y_train, y_test, positive, labels, max_train_rows, runner, svc, train_kernel, pca, prepared
            ),
            "threshold": threshold_report(choice, evaluation.metrics),
        },
        **scoring,
        "losses": None,
        "circuit": circuit,
        "fit_seconds": round(fit_seconds, 3),
        "kernel_seconds": {"train": round(train_kernel_seconds, 3), "test": round(test_kernel_seconds, 3)},
        "duration_seconds": round(time.monotonic() - started, 3),
    }
    return result, fitted


def _data_facts(
    y_train: np.ndarray[Any, Any],
    y_test: np.ndarray[Any, Any],
    positive: Any,
    labels: np.ndarray[Any, Any],
    max_train_rows: int,
    runner: CircuitRunner | None,
    svc: Any,
    train_kernel: FloatArray,
    pca: Any,
    prepared: PreparedData | None,
) -> dict[str, Any]:
    """The rows the model saw and its kernel (the result's ``data``)."""
    n_rows = len(labels)
    off_diagonal = train_kernel[~np.eye(n_rows, dtype=bool)] if n_rows > 1 else np.zeros(1)
    return {
        **binary_data_facts(y_train, y_test, positive, (n_rows, int(labels.sum())), prepared),
        "training_rows_rule": (
            ""
            if runner is not None
            else "a stratified quarter held out to choose the threshold; of the rest, "
        )
        + f"all training rows up to {max_train_rows}; above, every positive row "
        + ("up to half " if runner is not None else "")
        + "and a seeded sample of the others",
        "support_vectors": len(svc.support_),
        "kernel_off_diagonal_mean": round(float(off_diagonal.mean()), 6),
        "pca_explained_variance": [float(v) for v in pca.explained_variance_ratio_],
    }


def _config(
    fitted: FittedQSVC,
    features: int,
    facts: dict[str, Any],
    runner: CircuitRunner | None,
    noise_model: str | None,
    device: DeviceTarget | None,
    lowest_eigenvalue: float | None,
) -> dict[str, Any]:
    """What the model is and how it ran (the result's ``config``)."""
    return {
        "model": MODEL,
        "feature_map": f"ZZFeatureMap (reps {fitted.reps}, full entanglement)",
        "kernel": "fidelity |<phi(x)|phi(y)>|^2 (compute-uncompute)",
        "qubits": fitted.qubits,
        "reduction": f"PCA {features} -> {fitted.qubits}",
        "svm": "SVC(kernel='precomputed', C=1, class_weight='balanced')",
        "shots": facts["shots"],
        "seed": facts["seed"],
        "class_imbalance": "balanced class weights in the SVM",
        "simulation": facts["simulation"],
        "noise_model": noise_model,
        "device": device.name if device is not None else None,
        "kernel_run": facts["kernel_run"],
        "training_kernel_psd": None
        if lowest_eigenvalue is None
        else f"lowest eigenvalue {lowest_eigenvalue:.4g} before the projection onto the PSD matrices",
        "saved_model_predicts": "exact statevector fidelity kernel (the noise model or device is not "
        "saved with it)"
        if runner is not None
        else None,
        "backend_run": runner.summary() if runner is not None else None,
    }


def _test_rows_rule(
    runner: CircuitRunner | None,
    y_test: np.ndarray[Any, Any],
    y_all_test: np.ndarray[Any, Any],
    positive: Any,
    max_test_rows: int,
) -> dict[str, Any]:
    rule = (
        None
        if runner is None
        else f"a seeded sample of at most {max_test_rows} test rows, stratified by class with at least "
        f"{MIN_CLASS_SHARE:.0%} of them per class: {int(np.sum(y_test == positive))} positive of "
        f"{len(y_test)} (the test part has {int(np.sum(y_all_test == positive))} of {len(y_all_test)}), "
        "so precision, accuracy and PR-AUC are of this sample; ROC-AUC and recall do not depend on "
        "the shares"
    )
    return {"test_rows_scored": len(y_test), "test_rows_rule": rule}


def save(
    output_dir: Path | str, fitted: FittedQSVC, problem: str | None = "fraud-detection"
) -> dict[str, str]:
    """Write model.json (framework ``qiskit-kernel``) into ``output_dir``; {artifact name: file name}."""
    from qmlstudio_worker.quantum import variational_classifier

    directory = Path(output_dir)
    variational_classifier.save(directory, fitted, problem)  # the shared preprocessing and reduction
    card = json.loads((directory / "model.json").read_text(encoding="utf-8"))
    card["framework"] = FRAMEWORK
    card["model"] = MODEL
    card["architecture"] = {
        "qubits": fitted.qubits,
        "feature_map": "ZZFeatureMap",
        "feature_map_reps": fitted.reps,
        "kernel": "fidelity",
    }
    card["parameters"].pop("weights", None)
    card["parameters"]["support_angles"] = fitted.support_angles.tolist()
    card["parameters"]["dual_coef"] = [float(v) for v in fitted.dual_coef]
    card["parameters"]["intercept"] = fitted.intercept
    (directory / "model.json").write_text(json.dumps(card, indent=2), encoding="utf-8")
    return {"model": "model.json"}


def load(model_dir: Path | str) -> VQCPredictor:
    """The predictor saved by :func:`save` in ``model_dir``."""
    card = read_model_card(model_dir, FRAMEWORK)
    p = card["parameters"]
    fitted = FittedQSVC(
        **preprocessing_from_card(card),
        pqc="none",
        reps=int(card["architecture"]["feature_map_reps"]),
        weights=np.zeros(0),
        support_angles=np.asarray(p["support_angles"], dtype=np.float64).reshape(
            -1, card["architecture"]["qubits"]
        ),
        dual_coef=np.asarray(p["dual_coef"], dtype=np.float64),
        intercept=float(p["intercept"]),
        threshold=float(p.get("threshold", 0.5)),  # models saved before the choice flag at margin >= 0
    )
    return VQCPredictor(fitted)
