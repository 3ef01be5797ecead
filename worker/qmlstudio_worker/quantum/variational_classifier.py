"""Variational quantum classifier of a binary classification (fraud detection's "Variational Quantum
Classifier").

Pipeline (everything that learns from data is fitted on the training part only):

1. the preprocessed features (imputed and normalized by :func:`qmlstudio_worker.ml.preprocess.
   prepare_classification`) are standardized (training mean and deviation) and, when there are more
   features than ``qubits``, reduced by PCA to ``qubits`` components, ``qubits`` = min(feature count,
   ``DEFAULT_QUBITS`` = 4; the form has no qubit field for fraud). Standardizing first matters: on the
   fraud sample, a logistic regression on 4 PCA components reaches ROC-AUC 0.90 with it and 0.60
   without. With one qubit per feature there is no PCA (a rotation would mix the features each qubit
   sees). Each component's training z-score, clipped to [-3, 3], maps linearly onto the angle range
   [0, r]. The ZZ map's pair phases 2 (pi - x_i)(pi - x_j) oscillate quickly as r grows, so r is chosen
   among ``ANGLE_RANGES`` (0.5, 1, pi/2, pi rad) by the class-weighted cross-entropy on a stratified 25 %
   validation part of the training rows (exact statevector; the test rows never take part). Measured
   (COBYLA 100): the fraud example picks 0.5 (test ROC-AUC 0.85; pi gives 0.60), Iris (virginica against
   the rest, RealAmplitudes reps 3, seed 123) picks 0.5 (test accuracy 0.93);
2. Qiskit's ZZ feature map (``zz_feature_map(qubits, reps=2, entanglement="full")``) encodes a row;
3. the chosen PQC (RealAmplitudes, EfficientSU2 or TwoLocal, see :class:`.statevector.Ansatz`) with
   ``circuit_repetition`` reps is trained;
4. the class is the parity of the measured bitstring (Qiskit VQC's interpretation for two classes): the
   fraud probability is the total probability of the odd-parity bitstrings.

Training minimizes the class-weighted cross-entropy (weights n / (2 n_class), "balanced", so the 0.5 %
fraud class counts as much as the rest) with ``optimizer_alg`` (COBYLA, SPSA or ADAM, see
:mod:`.optimizers`) for ``optimizer_alg_maxiter`` iterations. Simulation is exact and fast: the feature map
states of the training rows are computed once (they do not depend on the weights), and each evaluation
applies the PQC to all of them as one batched statevector operation (:mod:`.statevector`, whose states
the tests compare with ``qiskit.quantum_info.Statevector``). It computes the same model as
qiskit-machine-learning's ``VQC`` on the exact ``QMLSampler`` (qiskit-machine-learning 0.9.0 is installed as
the reference: ``tests/unit/test_vqc_qiskit_ml.py`` checks the class probabilities equal), batched and
without its per-row primitive calls. With ``shots``, each row's fraud probability in the training loss
is estimated from that many measurements (binomial sampling, seeded); the test rows are scored with the
exact probabilities (the result says so).

With a noise model (``noise_model``, a fake IBM device of :mod:`.backends`), every probability comes from
the circuits that ran: the feature map + PQC is transpiled for the device and each loss evaluation runs it
for every training row under the device's noise (Aer density matrix, ``shots`` shots per row), and the test
rows are scored the same way. That costs milliseconds per row, so at most ``MAX_NOISY_TRAIN_ROWS`` training
rows are used (every fraud row first, as above). ADAM under a noise model trains on the gradient of the
exact noisy channel: the same transpiled circuit and noise compiled into a differentiable torch
density-matrix simulation (:mod:`.noisy_density`, equal to Aer's density matrix to 1e-10), so its loss curve
is the infinite-shot noisy loss and no training circuit is sampled; the test rows are still scored by the
noisy circuits on Aer with ``shots``. ADAM on a real device is refused (``optimizers.ADAM_ON_A_DEVICE``).

Training rows: all of them up to ``MAX_TRAIN_ROWS``; above it, every fraud row is kept and the others are
sampled (seeded) to fill the cap; the result records the rows used. Predictions: fraud when the fraud
probability is at least 0.5.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd  # type: ignore[import-untyped]

from qmlstudio_worker.ml.binary_report import (
    binary_data_facts,
    binary_labels,
    evaluated_part,
    score_binary,
)
from qmlstudio_worker.ml.classification import (
    threshold_report,
)
from qmlstudio_worker.ml.decision_threshold import VALIDATION_SHARE as THRESHOLD_SHARE
from qmlstudio_worker.ml.decision_threshold import choose_threshold
from qmlstudio_worker.ml.preprocess import (
    MinMaxNormalizer,
    MissingValueImputer,
    PreparedData,
    numeric_features,
    stratified_split,
)
from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum.backends import DEFAULT_NOISY_SHOTS, CircuitRunner, prepare_runner
from qmlstudio_worker.quantum.devices import DeviceTarget
from qmlstudio_worker.quantum.optimizers import ADAM_ON_A_DEVICE, OPTIMIZERS, OptimizerResult, minimize
from qmlstudio_worker.quantum.statevector import (
    PQC_NAMES,
    Ansatz,
    circuit_summary,
    parity,
    probabilities,
    qiskit_feature_map,
    zz_feature_map_states,
)

MODEL = "Variational Quantum Classifier"
FRAMEWORK = "qiskit"
DEFAULT_QUBITS = 4
FEATURE_MAP_REPS = 2
MAX_TRAIN_ROWS = 20_000
MAX_NOISY_TRAIN_ROWS = 200  # a noisy evaluation runs one circuit per row (about 5 ms each, 4 qubits)
ANGLE_CLIP = 3.0  # component z-scores in [-3, 3] map linearly onto [0, angle range]; beyond, clipped
ANGLE_RANGE = 0.5  # radians: the range of a model saved before the range was chosen by validation
ANGLE_RANGES = (0.5, 1.0, math.pi / 2, math.pi)  # the candidates; see the module docstring
VALIDATION_SHARE = 0.25  # of the training rows, held out to choose the angle range
SIMULATION = "exact statevector (torch, complex128)"

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


@dataclass
class FittedVQC:
    """What inference needs: the preprocessing, PCA, the angle scaling, the circuit and its weights."""

    features: list[str]
    target: str
    imputer: MissingValueImputer | None
    normalizer: MinMaxNormalizer
    standard_mean: FloatArray  # standardization before PCA (training mean and deviation per feature)
    standard_scale: FloatArray
    pca_mean: FloatArray
    pca_components: FloatArray  # (qubits, features)
    component_scale: FloatArray  # training deviation of each component: angles from z-scores
    pqc: str
    reps: int
    weights: FloatArray
    positive: Any
    negative: Any
    # keyword-only so subclasses (FittedQSVC) may add fields without defaults
    angle_range: float = field(default=ANGLE_RANGE, kw_only=True)
    #: The fraud probability from which a row is flagged, chosen on validation rows of the training part.
    threshold: float = field(default=0.5, kw_only=True)

    @property
    def qubits(self) -> int:
        return int(self.pca_components.shape[0])

    def angles(self, x_normalized: FloatArray) -> FloatArray:
        standardized = (np.asarray(x_normalized, dtype=np.float64) - self.standard_mean) / self.standard_scale
        reduced = (standardized - self.pca_mean) @ self.pca_components.T
        z = np.clip(reduced / self.component_scale / ANGLE_CLIP, -1.0, 1.0)
        return np.asarray((z + 1.0) / 2 * self.angle_range, dtype=np.float64)

    def positive_probability(self, x_normalized: FloatArray) -> FloatArray:
        import torch

        states = zz_feature_map_states(self.angles(x_normalized), FEATURE_MAP_REPS)
        ansatz = Ansatz(self.pqc, self.qubits, self.reps)
        with torch.no_grad():
            odd = _odd_probability(states, ansatz, torch.as_tensor(self.weights))
        return np.asarray(odd.numpy(), dtype=np.float64)

    def predict_normalized(self, x_normalized: FloatArray) -> np.ndarray[Any, Any]:
        scores = self.positive_probability(x_normalized)
        labels: np.ndarray[Any, Any] = np.where(scores >= self.threshold, self.positive, self.negative)
        return labels

    def prepare(self, frame: pd.DataFrame) -> FloatArray:
        x = numeric_features(frame, self.features)
        if self.imputer is not None:
            x = self.imputer.transform(x)
        elif x.isna().to_numpy().any():
            raise ValueError("the rows have empty cells and the model was trained with remove_rows")
        return self.normalizer.transform(x)

    def predict(self, frame: pd.DataFrame) -> np.ndarray[Any, Any]:
        return self.predict_normalized(self.prepare(frame))


def _odd_probability(states: Any, ansatz: Ansatz, weights: Any) -> Any:
    """The total probability of the odd-parity bitstrings after the PQC, for every row."""
    import torch

    if states.shape[0] < 2**ansatz.qubits:
        # Fewer rows than basis states: building the 2**n x 2**n unitary costs more than running the
        # circuit on the rows (12 qubits, 120 rows: 16 s against 1 s CPU a step, forward and backward).
        final = ansatz.apply(states, weights)
    else:
        final = states @ ansatz.unitary(weights).T.to(states.dtype)  # one matmul for every row
    odd = torch.as_tensor(parity(ansatz.qubits), dtype=torch.float64)
    return probabilities(final) @ odd


def _weighted_cross_entropy(p_fraud: Any, is_fraud: Any) -> Any:
    """Cross-entropy with balanced class weights n / (2 n_class): the rare fraud class counts as much as
    the rest."""
    import torch

    n_rows, n_fraud = len(is_fraud), int(is_fraud.sum())
    weights = torch.where(is_fraud, n_rows / (2 * n_fraud), n_rows / (2 * (n_rows - n_fraud))).to(
        torch.float64
    )
    p_true = torch.where(is_fraud, p_fraud, 1 - p_fraud)
    return -(weights * torch.log(p_true.clamp_min(1e-10))).sum() / weights.sum()


def _initial_point(ansatz: Ansatz, seed: int) -> FloatArray:
    return np.random.default_rng(seed).uniform(-math.pi, math.pi, ansatz.num_parameters)


def choose_angle_range(
    fitted: FittedVQC,
    x: FloatArray,
    is_fraud: np.ndarray[Any, Any],
    ansatz: Ansatz,
    optimizer: str,
    maxiter: int,
    seed: int,
) -> tuple[float, dict[float, float]]:
    """The angle range of ``ANGLE_RANGES`` whose model, trained (exact statevector) on 75 % of the
    training rows, has the lowest class-weighted cross-entropy on the other 25 % (stratified, seeded).
    Returns the range and every candidate's validation loss; with fewer than 4 rows of a class there is
    nothing to validate on and the range is ``ANGLE_RANGE``."""
    import torch
    from sklearn.model_selection import train_test_split  # type: ignore[import-untyped]

    if min(int(is_fraud.sum()), int((~is_fraud).sum())) < 4:
        return ANGLE_RANGE, {}
    fit_rows, val_rows = train_test_split(
        np.arange(len(x)), test_size=VALIDATION_SHARE, stratify=is_fraud, random_state=seed
    )
    fit_fraud, val_fraud = torch.as_tensor(is_fraud[fit_rows]), torch.as_tensor(is_fraud[val_rows])
    losses: dict[float, float] = {}
    for candidate in ANGLE_RANGES:
        trial = replace(fitted, angle_range=candidate)
        fit_states = zz_feature_map_states(trial.angles(x[fit_rows]), FEATURE_MAP_REPS)
        val_states = zz_feature_map_states(trial.angles(x[val_rows]), FEATURE_MAP_REPS)

        def loss(weights: Any, states: Any = fit_states) -> Any:
            return _weighted_cross_entropy(_odd_probability(states, ansatz, weights), fit_fraud)

        found = minimize(loss, _initial_point(ansatz, seed), optimizer, maxiter, seed, None)
        with torch.no_grad():
            p_val = _odd_probability(val_states, ansatz, torch.as_tensor(found.x))
            losses[candidate] = float(_weighted_cross_entropy(p_val, val_fraud))
    return min(losses, key=lambda c: losses[c]), losses


def _noisy_odd_probability(
    noisy: CircuitRunner, angles: FloatArray, weights: Any, odd: FloatArray
) -> FloatArray:
    """The measured odd-parity share of every row, from the noisy circuits (feature angles, then weights)."""
    w = np.asarray(weights.detach().numpy() if hasattr(weights, "detach") else weights, dtype=np.float64)
    values = np.hstack([angles, np.tile(w, (angles.shape[0], 1))])
    return np.asarray(noisy.probabilities(values) @ odd, dtype=np.float64)


def _training_rows(y: np.ndarray[Any, Any], positive: Any, cap: int, seed: int) -> np.ndarray[Any, Any]:
    """Row positions used for training: all of them up to ``cap``; above, every positive row and a seeded
    sample of the others."""
    if len(y) <= cap:
        return np.arange(len(y))
    rng = np.random.default_rng(seed)
    positives = np.flatnonzero(y == positive)
    others = np.flatnonzero(y != positive)
    keep = max(cap - len(positives), 1)
    return np.sort(
        np.concatenate([positives, rng.choice(others, size=min(keep, len(others)), replace=False)])
    )


def _check_training_setup(
    pqc: str, optimizer: str, reps: int, shots: int | None, device: DeviceTarget | None
) -> None:
    if pqc not in PQC_NAMES:
        raise ValueError(f"unknown PQC {pqc!r}; expected one of {', '.join(PQC_NAMES)}")
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}; expected one of {', '.join(OPTIMIZERS)}")
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise ValueError(f"circuit repetitions must be a positive integer, got {reps!r}")
    if shots is not None and (isinstance(shots, bool) or not isinstance(shots, int) or shots < 1):
        raise ValueError(f"shots must be a positive integer or None, got {shots!r}")
    if device is not None and optimizer == "ADAM":
        raise ValueError(ADAM_ON_A_DEVICE)


@dataclass(frozen=True)
class _Reduction:
    """The fitted preprocessing of the training rows onto ``qubits`` angles (PCA when it reduces)."""

    fitted: FittedVQC
    pca: Any
    words: str


def _fit_reduction(
    x_train: FloatArray,
    n_qubits: int,
    labels: tuple[Any, Any],
    circuit: tuple[str, int],
    prepared: PreparedData | None,
    target: str,
    seed: int,
) -> _Reduction:
    """Standardize, then PCA only when there are more features than qubits: with one qubit per feature
    it would only rotate, mixing the features every qubit sees (Iris, COBYLA 100: test accuracy 0.77
    rotated, 0.90-0.97 not)."""
    from sklearn.decomposition import PCA  # type: ignore[import-untyped]

    standard_mean = x_train.mean(axis=0)
    standard_scale = np.where(x_train.std(axis=0) > 0, x_train.std(axis=0), 1.0)
    standardized = (x_train - standard_mean) / standard_scale
    reduce = n_qubits < x_train.shape[1]
    pca = (
        PCA(n_components=n_qubits, svd_solver="full", random_state=seed).fit(standardized) if reduce else None
    )
    pca_mean = np.asarray(pca.mean_, dtype=np.float64) if pca is not None else np.zeros(n_qubits)
    pca_components = np.asarray(pca.components_, dtype=np.float64) if pca is not None else np.eye(n_qubits)
    component_std = ((standardized - pca_mean) @ pca_components.T).std(axis=0)
    fitted = FittedVQC(
        features=list(prepared.features)
        if prepared is not None
        else [f"x{i}" for i in range(x_train.shape[1])],
        target=target,
        imputer=prepared.imputer if prepared is not None else None,
        normalizer=prepared.normalizer if prepared is not None else MinMaxNormalizer("[0,1]"),
        standard_mean=standard_mean,
        standard_scale=standard_scale,
        pca_mean=pca_mean,
        pca_components=pca_components,
        component_scale=np.where(component_std > 0, component_std, 1.0),
        pqc=circuit[0],
        reps=circuit[1],
        weights=np.zeros(0),
        positive=labels[0],
        negative=labels[1],
    )
    words = (
        f"PCA {x_train.shape[1]} -> {n_qubits} features"
        if reduce
        else f"{n_qubits} standardized features (no PCA: one qubit per feature)"
    )
    return _Reduction(fitted, pca, words)


@dataclass
class _Objective:
    """The class-weighted cross-entropy of the training rows as the run evaluates it: exact, sampled
    with ``shots``, on the noisy circuits, or (ADAM under a noise model) on the differentiable channel."""

    loss: Callable[[Any], Any]
    runner: CircuitRunner | None
    channel: Any
    rows: int
    positives: int


def _objective(
    train_angles: FloatArray,
    is_positive: np.ndarray[Any, Any],
    ansatz: Ansatz,
    runner: CircuitRunner | None,
    optimizer: str,
    shots: int | None,
    seed: int,
) -> _Objective:
    import torch

    states = zz_feature_map_states(train_angles, FEATURE_MAP_REPS)
    positive = torch.as_tensor(is_positive)
    n_rows = len(is_positive)
    rng = np.random.default_rng(seed)
    odd = parity(ansatz.qubits).astype(np.float64)
    channel = None
    if runner is not None and optimizer == "ADAM":
        from qmlstudio_worker.quantum.noisy_density import check_noisy_training_qubits, from_noisy_circuit

        channel = from_noisy_circuit(runner)
        check_noisy_training_qubits(channel.qubits, n_rows, "rows")
    channel_angles = torch.as_tensor(train_angles, dtype=torch.float64)
    odd_tensor = torch.as_tensor(odd)

    def loss(weights: Any) -> Any:
        if channel is not None:
            values = torch.cat([channel_angles, weights.reshape(1, -1).expand(n_rows, -1)], dim=1)
            p_positive = channel.probabilities(values) @ odd_tensor
        elif runner is not None:
            p_positive = torch.as_tensor(_noisy_odd_probability(runner, train_angles, weights, odd))
        else:
            p_positive = _odd_probability(states, ansatz, weights)
        if runner is None and shots is not None:
            sampled = rng.binomial(shots, np.clip(p_positive.detach().numpy(), 0, 1)) / shots
            p_positive = torch.as_tensor(sampled)
        return _weighted_cross_entropy(p_positive, positive)

    return _Objective(loss, runner, channel, n_rows, int(positive.sum()))


def _simulation_words(objective: _Objective, noise_model: str | None, shots: int | None) -> str:
    runner, channel = objective.runner, objective.channel
    if channel is not None and runner is not None:
        return (
            f"ADAM on the gradient of the {channel.describe()} of the circuit transpiled for "
            f"{noise_model}; the training loss is that channel's; test rows scored by "
            f"{runner.describe()} per row"
        )
    if runner is not None:
        return runner.describe() + " per row; test rows scored by the same noisy circuits"
    if shots is None:
        return SIMULATION
    return f"training loss from probabilities sampled with {shots} shots per row; test scores exact"


def _train(
    objective: _Objective, x0: FloatArray, optimizer: str, maxiter: int, seed: int, emit: Emitter | None
) -> tuple[OptimizerResult, float]:
    """Minimize the loss, reporting it per step; returns the result and the seconds it took."""

    def on_step(step: int, value: float) -> None:
        if emit is not None:
            emit.metric("train_loss", value, step=step)
            if step % 5 == 0 or step == maxiter:
                done = min(step, maxiter)
                emit.progress(20 + 60 * done / maxiter, f"iteration {done}/{maxiter}", "executing")

    started = time.monotonic()
    if objective.channel is not None:  # one intra-op thread: measured 2x faster on the shared 2-core machine
        from qmlstudio_worker.ml.recurrent import torch_settings

        with torch_settings(1, deterministic=False):
            found = minimize(objective.loss, x0, optimizer, maxiter, seed, on_step)
    else:
        found = minimize(objective.loss, x0, optimizer, maxiter, seed, on_step)
    return found, time.monotonic() - started


def _loss_chart(optimizer: str, curve: list[float]) -> dict[str, Any]:
    return {
        "type": "line",
        "title": f"{MODEL}: training loss per {'evaluation' if optimizer == 'COBYLA' else 'step'}",
        "label": "class-weighted cross-entropy",
        "series": [{"name": "training loss", "data": [round(v, 8) for v in curve]}],
        "categories": list(range(1, len(curve) + 1)),
    }


def train_variational_classifier(
    x_train: FloatArray,
    y_train: np.ndarray[Any, Any],
    x_test: FloatArray,
    y_test: np.ndarray[Any, Any],
    pqc: str = "RealAmplitudes",
    reps: int = 2,
    optimizer: str = "COBYLA",
    maxiter: int = 100,
    seed: int = 42,
    emit: Emitter | None = None,
    shots: int | None = None,
    prepared: PreparedData | None = None,
    target: str = "Class",
    qubits: int | None = None,
    max_train_rows: int = MAX_TRAIN_ROWS,
    noise_model: str | None = None,
    device: DeviceTarget | None = None,
    recall_target: float | None = None,
) -> tuple[dict[str, Any], FittedVQC]:
    """Train the VQC on the (already preprocessed) training rows of a binary classification and score it
    on the test rows next to the majority-class baseline. Returns what
    :func:`qmlstudio_worker.ml.classification.train_classifier` returns (result data, fitted model);
    ``prepared`` (the preprocessing) is needed to save the model for inference on raw rows.

    A stratified quarter of the training rows is held out from the fit and chooses the decision threshold
    on the exact fraud probabilities (:mod:`qmlstudio_worker.ml.decision_threshold`: the best F1, or the
    best precision reaching ``recall_target``); under a noise model or on a device, whose test scores are
    sampled, the threshold stays 0.5."""
    _check_training_setup(pqc, optimizer, reps, shots, device)
    if noise_model is not None or device is not None:
        shots = shots if shots is not None else DEFAULT_NOISY_SHOTS
        max_train_rows = min(max_train_rows, MAX_NOISY_TRAIN_ROWS)
    started = time.monotonic()
    x_train, x_test = np.asarray(x_train, dtype=np.float64), np.asarray(x_test, dtype=np.float64)
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    positive, negative = binary_labels(y_train)
    n_qubits = qubits if qubits is not None else min(x_train.shape[1], DEFAULT_QUBITS)
    if not 1 <= n_qubits <= min(x_train.shape[1], 10):
        raise ValueError(f"qubits must be between 1 and min(feature count, 10), got {n_qubits}")

    if emit is not None:
        emit.progress(15, "reducing features (PCA)")
    try:
        fit_part, validation = stratified_split(y_train, THRESHOLD_SHARE, seed)
    except ValueError:  # too few positive rows to hold some out
        fit_part, validation = np.arange(len(y_train)), np.arange(0)
    rows = fit_part[_training_rows(y_train[fit_part], positive, max_train_rows, seed)]
    reduction = _fit_reduction(x_train, n_qubits, (positive, negative), (pqc, reps), prepared, target, seed)
    fitted = reduction.fitted
    ansatz = Ansatz(pqc, n_qubits, reps)
    feature_map = qiskit_feature_map(n_qubits, FEATURE_MAP_REPS)
    ansatz_circuit = ansatz.qiskit_circuit()
    runner = prepare_runner(
        feature_map.compose(ansatz_circuit),
        [*feature_map.parameters, *ansatz_circuit.parameters],
        shots=shots,
        seed=seed,
        noise_model=noise_model,
        device=device,
        emit=emit,
        percent=17,
    )
    if emit is not None:
        emit.progress(18, "choosing the feature angle range on a validation part of the training rows")
    fitted.angle_range, range_losses = choose_angle_range(
        fitted, x_train[rows], y_train[rows] == positive, ansatz, optimizer, maxiter, seed
    )
    objective = _objective(
        fitted.angles(x_train[rows]), y_train[rows] == positive, ansatz, runner, optimizer, shots, seed
    )
    circuit = circuit_summary(feature_map.compose(ansatz_circuit))
    simulation = _simulation_words(objective, noise_model, shots)
    if emit is not None:
        emit.log(
            f"{MODEL}: {objective.rows} training rows ({objective.positives} positive) of {len(y_train)}, "
            f"{len(y_test)} test rows; {reduction.words}; ZZ feature map (reps {FEATURE_MAP_REPS}) + "
            f"{pqc} (reps {reps}); {optimizer} {maxiter} iterations; "
            f"{simulation}; circuit depth {circuit['depth']}"
        )
        emit.progress(20, "training", "executing")
    found, fit_seconds = _train(objective, _initial_point(ansatz, seed), optimizer, maxiter, seed, emit)
    fitted.weights = np.asarray(found.x, dtype=np.float64)

    if emit is not None:
        stage = "evaluating" if runner is None else "evaluating the test rows on the circuits that ran"
        emit.progress(85, stage, "executing")
    odd = parity(n_qubits).astype(np.float64)
    scores = (
        fitted.positive_probability(x_test)
        if runner is None
        else _noisy_odd_probability(runner, fitted.angles(x_test), fitted.weights, odd)
    )
    if emit is not None:
        emit.progress(88, "metrics and charts", "post-processing")
    curve = [float(v) for v in found.curve]
    choice = None
    if len(validation) and runner is None:
        choice = choose_threshold(
            y_train[validation], fitted.positive_probability(x_train[validation]), positive, recall_target
        )
        fitted.threshold = choice.threshold
        if emit is not None:
            emit.log(f"{MODEL}: {choice.sentence()}")
    elif emit is not None:
        emit.log(f"{MODEL}: decision threshold 0.5 (sampled test scores, or too few positive training rows)")
    scored = evaluated_part(len(y_test), len(y_test))  # every test row is scored, noisy or not
    evaluation, scoring = score_binary(
        MODEL,
        y_train,
        y_test,
        scores,
        fitted.threshold,
        (positive, negative),
        scored,
        choice,
        emit,
        (_loss_chart(optimizer, curve),),
    )
    run = {"optimizer": optimizer, "maxiter": maxiter, "shots": shots, "seed": seed, "simulation": simulation}
    result: dict[str, Any] = {
        "model": MODEL,
        "model_type": "Quantum",
        "config": _config(fitted, reduction.words, range_losses, run, objective, noise_model, device),
        "data": {
            **_data_facts(y_train, y_test, positive, objective, max_train_rows, reduction.pca, prepared),
            "threshold": threshold_report(choice, evaluation.metrics),
        },
        **scoring,
        "losses": {"train": curve, "test": []},
        "optimizer": {**found.describe(), "maxiter": maxiter},
        "circuit": circuit,
        "weights": [float(v) for v in fitted.weights],
        "fit_seconds": round(fit_seconds, 3),
        "duration_seconds": round(time.monotonic() - started, 3),
    }
    return result, fitted


def _config(
    fitted: FittedVQC,
    reduction: str,
    range_losses: dict[float, float],
    run: dict[str, Any],
    objective: _Objective,
    noise_model: str | None,
    device: DeviceTarget | None,
) -> dict[str, Any]:
    """What the model is and how it ran (the result's ``config``)."""
    runner, channel = objective.runner, objective.channel
    return {
        "model": MODEL,
        "pqc": fitted.pqc,
        "reps": fitted.reps,
        "feature_map": f"ZZFeatureMap (reps {FEATURE_MAP_REPS}, full entanglement)",
        "qubits": fitted.qubits,
        "reduction": f"{reduction}, z-scores in [-{ANGLE_CLIP:g}, "
        f"{ANGLE_CLIP:g}] scaled to [0, {fitted.angle_range:.4g}] rad",
        "angle_range": fitted.angle_range,
        "angle_range_rule": f"lowest class-weighted cross-entropy on a stratified {VALIDATION_SHARE:.0%} "
        "validation part of the training rows, among "
        + ", ".join(f"{c:.4g}" for c in ANGLE_RANGES)
        + " rad (exact statevector)",
        "angle_range_validation_losses": {f"{c:.4g}": v for c, v in range_losses.items()},
        "optimizer": run["optimizer"],
        "maxiter": run["maxiter"],
        "shots": run["shots"],
        "seed": run["seed"],
        "class_imbalance": "balanced class weights in the cross-entropy",
        "interpretation": "parity of the measured bitstring (odd = the positive class)",
        "simulation": run["simulation"],
        "noise_model": noise_model,
        "saved_model_predicts": "exact statevector (the noise model or device is not saved with it)"
        if runner is not None
        else None,
        "device": device.name if device is not None else None,
        "backend_run": runner.summary() if runner is not None else None,
        "noisy_training": channel.training_summary() if channel is not None else None,
    }


def _data_facts(
    y_train: np.ndarray[Any, Any],
    y_test: np.ndarray[Any, Any],
    positive: Any,
    objective: _Objective,
    max_train_rows: int,
    pca: Any,
    prepared: PreparedData | None,
) -> dict[str, Any]:
    """The rows the model saw (the result's ``data``)."""
    return {
        **binary_data_facts(y_train, y_test, positive, (objective.rows, objective.positives), prepared),
        "training_rows_rule": f"all training rows up to {max_train_rows}; above, every positive row "
        "and a seeded sample of the others",
        "pca_explained_variance": [float(v) for v in pca.explained_variance_ratio_]
        if pca is not None
        else None,
    }


# ----------------------------------------------------------------------------------------------------
# Artifacts: model.json holds everything (plain numbers; no pickle).


@dataclass
class VQCPredictor:
    """The Predictor interface of ``ml/artifacts.py``: ``features``, ``target``, ``predict_frame``."""

    fitted: FittedVQC

    @property
    def features(self) -> list[str]:
        return list(self.fitted.features)

    @property
    def target(self) -> str:
        return self.fitted.target

    def predict_frame(self, frame: pd.DataFrame) -> tuple[list[float], list[float]]:
        """(actual, predicted) as 1.0 (fraud) / 0.0 per row; the target column may be absent (then the
        actual list is empty). Missing feature columns are refused, naming them."""
        from qmlstudio_worker.ml.datasets import DatasetError

        missing = [c for c in self.features if c not in frame.columns]
        if missing:
            raise DatasetError(f"The data has no column(s): {', '.join(missing)}.")
        try:
            predicted = self.fitted.predict(frame)
        except ValueError as exc:
            raise DatasetError(str(exc)) from None
        positive = self.fitted.positive
        actual = (
            [1.0 if _same_label(v, positive) else 0.0 for v in frame[self.target].tolist()]
            if self.target in frame.columns
            else []
        )
        return actual, [1.0 if _same_label(v, positive) else 0.0 for v in predicted.tolist()]


def _same_label(value: Any, positive: Any) -> bool:
    return bool(value == positive) or str(value) == str(positive)


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def save(
    output_dir: Path | str, fitted: FittedVQC, problem: str | None = "fraud-detection"
) -> dict[str, str]:
    """Write model.json (framework ``qiskit``) into ``output_dir``; returns {artifact name: file name}."""
    from qmlstudio_worker.quantum.hybrid import imputer_to_dict

    directory = Path(output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    card = {
        "format_version": 1,
        "problem": problem,
        "framework": FRAMEWORK,
        "model": MODEL,
        "features": list(fitted.features),
        "target": fitted.target,
        "window": None,
        "normalization": fitted.normalizer.normalization,
        "missing_values": fitted.imputer.strategy if fitted.imputer is not None else "remove_rows",
        "architecture": {
            "qubits": fitted.qubits,
            "feature_map": "ZZFeatureMap",
            "feature_map_reps": FEATURE_MAP_REPS,
            "pqc": fitted.pqc,
            "reps": fitted.reps,
            "interpretation": "parity",
        },
        "parameters": {
            "imputer": imputer_to_dict(fitted.imputer),
            "normalizer": fitted.normalizer.to_dict(),
            "pca_mean": [float(v) for v in fitted.pca_mean],
            "pca_components": fitted.pca_components.tolist(),
            "standard_mean": [float(v) for v in fitted.standard_mean],
            "standard_scale": [float(v) for v in fitted.standard_scale],
            "component_scale": [float(v) for v in fitted.component_scale],
            "angle_range": fitted.angle_range,
            "threshold": fitted.threshold,
            "weights": [float(v) for v in fitted.weights],
            "positive": _plain(fitted.positive),
            "negative": _plain(fitted.negative),
        },
        "files": {"model_card": "model.json"},
    }
    (directory / "model.json").write_text(json.dumps(card, indent=2), encoding="utf-8")
    return {"model": "model.json"}


def read_model_card(model_dir: Path | str, framework: str = FRAMEWORK) -> dict[str, Any]:
    """model.json of ``model_dir``; a ValueError when it was saved by another framework."""
    directory = Path(model_dir)
    card: dict[str, Any] = json.loads((directory / "model.json").read_text(encoding="utf-8"))
    if card.get("framework") != framework:
        raise ValueError(f"model.json in {directory.name} is not a {framework} model")
    return card


def preprocessing_from_card(card: dict[str, Any]) -> dict[str, Any]:
    """The saved FittedVQC fields the VQC and the QSVC share: columns, imputer, scaling, reduction, labels."""
    from qmlstudio_worker.quantum.hybrid import imputer_from_dict

    p = card["parameters"]
    return {
        "features": list(card["features"]),
        "target": card["target"],
        "imputer": imputer_from_dict(p["imputer"]),
        "normalizer": MinMaxNormalizer.from_dict(p["normalizer"]),
        "pca_mean": np.asarray(p["pca_mean"], dtype=np.float64),
        "pca_components": np.asarray(p["pca_components"], dtype=np.float64),
        "standard_mean": np.asarray(p["standard_mean"], dtype=np.float64),
        "standard_scale": np.asarray(p["standard_scale"], dtype=np.float64),
        "component_scale": np.asarray(p["component_scale"], dtype=np.float64),
        "positive": p["positive"],
        "negative": p["negative"],
    }


def load(model_dir: Path | str) -> VQCPredictor:
    """The predictor saved by :func:`save` in ``model_dir``."""
    card = read_model_card(model_dir)
    p = card["parameters"]
    fitted = FittedVQC(
        **preprocessing_from_card(card),
        pqc=card["architecture"]["pqc"],
        reps=int(card["architecture"]["reps"]),
        weights=np.asarray(p["weights"], dtype=np.float64),
        angle_range=float(p.get("angle_range", ANGLE_RANGE)),  # models saved before the choice: 0.5
        threshold=float(p.get("threshold", 0.5)),
    )
    return VQCPredictor(fitted)
