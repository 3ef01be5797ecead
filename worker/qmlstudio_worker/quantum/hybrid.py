"""Hybrid quantum neural network forecaster (stock price prediction and demand forecasting, "Quantum").

The same one-step-ahead task, split, preprocessing, metrics, baselines and charts as the classical
recurrent models (:mod:`qmlstudio_worker.ml.recurrent`): a window of the last ``window`` rows of the
normalized training features predicts the next value of the prediction feature, as its change from
the last known value (residual on persistence, ``target_mode="change"``; see that module's docstring).

The network, all in float64:

1. classical encoder: the flattened window -> ``qubits`` angles. With ``hidden_layers`` (the form's field,
   also shown for Quantum) it is Linear(window x features, hidden_layers) -> tanh -> Linear(hidden_layers,
   qubits); without it, one Linear map;
2. quantum layer on ``qubits`` qubits: angle encoding RY(angle_q) on qubit q, then the trainable ansatz
   RealAmplitudes(qubits, reps) (RY layers and CX entanglers in Qiskit's ``reverse_linear`` order), read
   out as the expectation values <Z_q> of every qubit;
3. linear head: Linear(qubits, 1).

Without noise the quantum layer is trained exactly: a batched statevector simulation written in torch
(:mod:`.statevector`), differentiated with autograd (exact gradients, no shots). The tests check its
expectation values against ``qiskit.quantum_info.Statevector`` of the Qiskit circuit
(:func:`qiskit_circuit`) to 1e-10. Trained with Adam at ``learning_rate`` for ``epochs`` epochs, mini-batches
shuffled within the training windows with a seeded generator: the same data and seed give the same metrics.

With a noise model (a fake IBM device, :mod:`.backends`) the network is TRAINED UNDER THAT NOISE: the layer's
Qiskit circuit is transpiled for the device (ISA, its active qubits only) and the quantum layer becomes the
noisy <Z_q> of that circuit, computed by :mod:`.noisy_density` (a torch density-matrix simulation of the ISA
gates, each gate's device error and the readout errors; autograd gradients). That is the exact expectation
of the noisy channel (infinitely many shots); the tests check it against Aer's density-matrix simulation to
1e-10. The encoder and the head are as without noise; the loss history (training and test) is the noisy
model's. The test predictions then run the same transpiled circuit on Aer (density matrix, ``shots`` shots
per window: the circuits that ran), so the metrics carry shot noise too. At most
``noisy_density.NOISY_TRAINING_LIMITS["hybrid"]`` (8) active qubits (refused above, with the measured cost).

On a real IBM device (``device``, :mod:`.devices`) the network is trained the same way under the noise of
the device's own calibration (the same noise builder applied to the opened backend's target), and the test
predictions run ON the device through SamplerV2 (``shots`` per window; provider job ids in the result).

The saved model holds the trained weights and predicts with the exact statevector (the noise model or
device is not saved with it; the result says so).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd  # type: ignore[import-untyped]

from qmlstudio_worker.ml.forecast_inputs import ForecastInputs
from qmlstudio_worker.ml.preprocess import (
    MinMaxNormalizer,
    MissingValueImputer,
    MissingValues,
    Normalization,
)
from qmlstudio_worker.ml.recurrent import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_WINDOW,
    FittedForecaster,
    check_training_arguments,
    fit_and_predict,
    prepare_windows,
    scored_forecast,
    start_at_reference,
    to_levels,
    torch_settings,
)
from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum.devices import DeviceTarget
from qmlstudio_worker.quantum.statevector import Ansatz, circuit_summary, ry_product_state, z_expectations

MODEL = "Quantum"
MODEL_NAME = "Hybrid quantum neural network"
FRAMEWORK = "torch-quantum"
DEFAULT_REPS = 2
MIN_QUBITS, MAX_QUBITS = 1, 12
SIMULATION = "exact statevector (torch, float64, autograd gradients)"
SAVED_MODEL_PREDICTS = "exact statevector (the noise model or device is not saved with it)"

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def quantum_layer(angles: Any, weights: Any, ansatz: Ansatz) -> Any:
    """<Z_q> (batch, qubits) after RY(angles[:, q]) on each qubit and the ansatz with ``weights``."""
    return z_expectations(ansatz.apply(ry_product_state(angles), weights), ansatz.qubits)


def z_signs(qubits: int) -> FloatArray:
    """(2**qubits, qubits): the eigenvalue of Z_q (+1 or -1) on every basis state (index bit q = qubit q)."""
    bits = (np.arange(2**qubits)[:, None] >> np.arange(qubits)) & 1
    return np.asarray(1 - 2 * bits, dtype=np.float64)


def z_from_probabilities(probabilities: FloatArray, qubits: int) -> FloatArray:
    """<Z_q> (rows, qubits) from measured distributions (rows, 2**qubits) with index bit q = qubit q."""
    return np.asarray(probabilities @ z_signs(qubits), dtype=np.float64)


def qiskit_circuit(qubits: int, reps: int = DEFAULT_REPS) -> Any:
    """The Qiskit circuit of the quantum layer: RY(x[q]) on each qubit, then RealAmplitudes(qubits, reps)."""
    from qiskit import QuantumCircuit
    from qiskit.circuit import ParameterVector

    encoding = QuantumCircuit(qubits)
    x = ParameterVector("x", qubits)
    for q in range(qubits):
        encoding.ry(x[q], q)
    return encoding.compose(Ansatz("RealAmplitudes", qubits, reps).qiskit_circuit())


def build_network(
    n_inputs: int, qubits: int, reps: int = DEFAULT_REPS, hidden_layers: int | None = None
) -> Any:
    """The hybrid ``nn.Module`` (float64): input (batch, window, features) -> (batch,)."""
    import torch
    from torch import nn

    if not MIN_QUBITS <= qubits <= MAX_QUBITS:
        raise ValueError(f"qubits must be between {MIN_QUBITS} and {MAX_QUBITS}, got {qubits}")
    if hidden_layers is not None and hidden_layers < 1:
        raise ValueError(f"hidden_layers must be a positive integer, got {hidden_layers}")
    ansatz = Ansatz("RealAmplitudes", qubits, reps)

    class HybridQNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            if hidden_layers is None:
                self.encoder: nn.Module = nn.Linear(n_inputs, qubits)
            else:
                self.encoder = nn.Sequential(
                    nn.Linear(n_inputs, hidden_layers), nn.Tanh(), nn.Linear(hidden_layers, qubits)
                )
            self.weights = nn.Parameter(torch.empty(ansatz.num_parameters).uniform_(-np.pi, np.pi))
            self.head = nn.Linear(qubits, 1)
            nn.init.zeros_(self.head.weight)  # see recurrent.start_at_reference
            self.ansatz = ansatz
            # While training under noise: the NoisyDensityProgram of the device-transpiled layer circuit
            # (parameters x[0..qubits-1], then the ansatz's), else None (exact statevector).
            self.noisy: Any = None
            self.signs = torch.as_tensor(z_signs(qubits))

        def expectations(self, x: torch.Tensor) -> torch.Tensor:
            angles = self.encoder(x.reshape(x.shape[0], -1))
            if self.noisy is not None:
                values = torch.cat([angles, self.weights.expand(angles.shape[0], -1)], dim=1)
                return self.noisy.probabilities(values) @ self.signs  # type: ignore[no-any-return]
            return quantum_layer(angles, self.weights, self.ansatz)  # type: ignore[no-any-return]

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            result: torch.Tensor = self.head(self.expectations(x)).squeeze(-1)
            return result

    return HybridQNN().double()


@dataclass
class FittedQuantumForecaster(FittedForecaster):
    """A fitted hybrid forecaster: the recurrent one's preprocessing plus the quantum layer's shape."""

    qubits: int = 4
    reps: int = DEFAULT_REPS
    n_inputs: int = 0

    def predict(self, frame: pd.DataFrame) -> FloatArray:
        import torch

        x, last = self.windows(frame)
        self.network.eval()
        with torch.no_grad():
            out = self.network(torch.as_tensor(x, dtype=torch.float64)).numpy()
        return to_levels(out, self.target_normalizer, self.target_mode, last)

    def architecture(self) -> dict[str, Any]:
        return {
            "encoder": "linear"
            if self.hidden_layers is None
            else f"linear-tanh({self.hidden_layers})-linear",
            "inputs": self.n_inputs,
            "qubits": self.qubits,
            "encoding": "RY angle encoding",
            "ansatz": "RealAmplitudes",
            "reps": self.reps,
            "readout": "Z expectation of every qubit",
            "head": "linear",
            "simulation": SIMULATION,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "imputer": imputer_to_dict(self.imputer),
            "qubits": self.qubits,
            "reps": self.reps,
            "n_inputs": self.n_inputs,
        }


def imputer_to_dict(imputer: MissingValueImputer | None) -> dict[str, Any] | None:
    """The imputer with everything it needs to fill cells again (means, and the ranges of random_values)."""
    if imputer is None:
        return None
    return {
        "strategy": imputer.strategy,
        "seed": imputer.seed,
        "means": dict(imputer.means),
        "lows": dict(imputer.lows),
        "highs": dict(imputer.highs),
    }


def imputer_from_dict(data: dict[str, Any] | None) -> MissingValueImputer | None:
    if data is None:
        return None
    return MissingValueImputer(
        data["strategy"],
        seed=int(data["seed"]),
        means={str(k): float(v) for k, v in data["means"].items()},
        lows={str(k): float(v) for k, v in data.get("lows", {}).items()},
        highs={str(k): float(v) for k, v in data.get("highs", {}).items()},
    )


def train_quantum_forecaster(
    frame: pd.DataFrame,
    *,
    training_features: Sequence[str],
    prediction_feature: str,
    train_share: float,
    epochs: int,
    learning_rate: float,
    qubits: int,
    hidden_layers: int | None = None,
    reps: int = DEFAULT_REPS,
    window: int = DEFAULT_WINDOW,
    batch_size: int = DEFAULT_BATCH_SIZE,
    normalization: Normalization = "[0,1]",
    missing_values: MissingValues = "impute_average",
    from_index: float | None = None,
    to_index: float | None = None,
    season_length: int | None = None,
    seed: int = 0,
    date_column: str | None = "Date",
    torch_threads: int | None = None,
    emit: Emitter | None = None,
    model: str = MODEL,
    noise_model: str | None = None,
    shots: int | None = None,
    device: DeviceTarget | None = None,
) -> tuple[dict[str, Any], FittedQuantumForecaster]:
    """Train the hybrid QNN and score it on the test part next to the persistence baseline (and the
    seasonal-naive one when ``season_length`` is given).

    Mirrors :func:`qmlstudio_worker.ml.recurrent.train_recurrent_forecaster`: the same keyword arguments
    (``qubits`` and ``reps`` for the quantum layer; ``hidden_layers`` sizes the classical encoder), the same
    emitted lines, and the same ``(result, fitted)`` return, the result adding ``model_name``,
    ``simulation`` and ``circuit`` (qubits, depth, parameters, gate counts of the Qiskit circuit).
    ``noise_model`` or ``device``: trained under that device's noise, test predictions with ``shots`` on
    Aer or on the device (module docstring).
    """
    import torch

    check_training_arguments(
        learning_rate, missing_values, epochs=epochs, window=window, batch_size=batch_size, qubits=qubits
    )
    started = time.monotonic()
    if emit is not None:
        emit.progress(2, "preprocessing")

    data = prepare_windows(
        frame,
        training_features,
        prediction_feature,
        from_index=from_index,
        to_index=to_index,
        train_share=train_share,
        window=window,
        missing_values=missing_values,
        normalization=normalization,
        seed=seed,
    )
    features = data.features
    imputer, feature_normalizer, target_normalizer = (
        data.imputer,
        data.feature_normalizer,
        data.target_normalizer,
    )
    n_inputs = window * data.input_width

    torch.manual_seed(seed)
    # Tiny tensors: one intra-op thread is faster than several (and fairer to a shared machine). Every
    # operation here is deterministic on the CPU already, so torch's deterministic switch stays off.
    with torch_settings(torch_threads if torch_threads is not None else 1, deterministic=False):
        network = build_network(n_inputs, qubits, reps, hidden_layers)
        start_at_reference(network, data)
        circuit = circuit_summary(qiskit_circuit(qubits, reps))
        runner, program = _prepare_noisy_training(
            qubits, reps, noise_model, device, shots, seed, len(data.y_train), emit
        )
        network.noisy = program
        training_simulation = (
            SIMULATION if program is None else f"{program.describe()} of {_where(runner, noise_model)}"
        )
        if emit is not None:
            emit.log(
                f"{MODEL_NAME}: {len(data.y_train)} training and {len(data.y_test)} test windows of "
                f"{window} rows, "
                f"{data.input_width} input(s) per row; {qubits} qubits, RealAmplitudes reps {reps} "
                f"(circuit depth {circuit['depth']}, {circuit['two_qubit_gates']} CX); "
                f"trained on the {training_simulation}"
            )
            if data.inputs is not None:
                emit.log(data.inputs.describe())
            emit.progress(5, "training", "executing" if program is not None else None)

        def predict(x_test: Any) -> FloatArray:
            network.noisy = None  # the saved model predicts exactly
            if runner is None:
                return np.asarray(network(x_test).numpy(), dtype=np.float64)
            return _noisy_predictions(network, x_test, qubits, runner, emit)

        settings = (learning_rate, epochs, batch_size, seed)
        (train_loss, test_loss), kept_epoch, predicted_scaled = fit_and_predict(
            network, data, settings, dtype=torch.float64, epoch_label="epoch", emit=emit, predict=predict
        )

    scored = scored_forecast(
        data,
        predicted_scaled,
        (train_loss, test_loss),
        kept_epoch,
        window=window,
        season=season_length,
        seasonal_chart=False,
        date_column=date_column,
        prediction_feature=prediction_feature,
        emit=emit,
    )
    fitted = FittedQuantumForecaster(
        model=model,
        network=network,
        training_features=features,
        prediction_feature=prediction_feature,
        window=window,
        hidden_layers=hidden_layers,  # type: ignore[arg-type]
        feature_normalizer=feature_normalizer,
        target_normalizer=target_normalizer,
        imputer=imputer,
        target_mode=data.target_mode,
        inputs=data.inputs,
        qubits=qubits,
        reps=reps,
        n_inputs=n_inputs,
    )
    result: dict[str, Any] = {
        "model": model,
        "model_name": MODEL_NAME,
        "model_type": "Quantum",
        "seed": seed,
        "metrics": scored["metrics"],
        "baselines": scored["baselines"],
        "loss": scored["loss"],
        "charts": scored["charts"],
        "simulation": SIMULATION
        if runner is None
        else f"trained on the {training_simulation}; test predictions: {runner.describe()}",
        "noise_model": noise_model,
        "device": device.name if device is not None else None,
        "backend_run": runner.summary() if runner is not None else None,
        "noisy_training": program.training_summary("Adam") if program is not None else None,
        "saved_model_predicts": SAVED_MODEL_PREDICTS if runner is not None else None,
        "architecture": fitted.architecture(),
        "circuit": circuit,
        "data": scored["data"],
        "duration_seconds": round(time.monotonic() - started, 3),
    }
    return result, fitted


def _where(runner: Any, noise_model: str | None) -> str:
    """The device whose noise a run uses, in words."""
    if noise_model is not None and not hasattr(runner, "job_ids"):
        return f"noise model {noise_model} ({runner.device}, qubits {runner.physical_qubits})"
    return f"the calibration of {runner.device}"


def _prepare_noisy_training(
    qubits: int,
    reps: int,
    noise_model: str | None,
    device: DeviceTarget | None,
    shots: int | None,
    seed: int,
    rows: int,
    emit: Emitter | None,
) -> tuple[Any, Any]:
    """(runner, program) for a noisy run: where the test predictions run (Aer with the noise model's noise,
    or the device) and the differentiable noisy program the network trains on; (None, None) without noise.
    Noisy training above ``NOISY_TRAINING_LIMITS["hybrid"]`` active qubits is refused (NoisyDensityError)."""
    if noise_model is None and device is None:
        return None, None
    from qmlstudio_worker.quantum.backends import prepare_runner
    from qmlstudio_worker.quantum.noisy_density import (
        check_noisy_training_qubits,
        compile_for_backend,
        from_noisy_circuit,
    )

    check_noisy_training_qubits(qubits, rows, "hybrid")  # before connecting or transpiling
    circuit = qiskit_circuit(qubits, reps)
    parameters = list(circuit.parameters)  # x[0..qubits-1], then the ansatz's: the order of a value row
    runner = prepare_runner(
        circuit,
        parameters,
        shots=shots,
        seed=seed,
        noise_model=noise_model,
        device=device,
        emit=emit,
        percent=3,
    )
    assert runner is not None
    if device is not None:
        opened: Any = runner  # a DeviceCircuit: the backend it opened, whose target has the calibration
        program, _, _ = compile_for_backend(circuit, parameters, opened.backend, seed)
    else:
        program = from_noisy_circuit(runner)
    check_noisy_training_qubits(program.qubits, rows, "hybrid")  # routing may add qubits
    return runner, program


def _noisy_predictions(network: Any, x: Any, qubits: int, runner: Any, emit: Emitter | None) -> FloatArray:
    """The trained network's outputs on ``x`` with the quantum layer run by ``runner`` (Aer under the
    noise model, or the device): the encoder's angles and the trained weights bound into the transpiled
    circuit, <Z_q> from its measured shots, then the linear head."""
    import torch

    if emit is not None:
        emit.progress(91, "test predictions on the circuits that run")  # still executing
    angles = network.encoder(x.reshape(x.shape[0], -1)).numpy()
    weights = np.tile(network.weights.detach().numpy(), (angles.shape[0], 1))
    # The circuit's parameters are x[0..qubits-1] then the ansatz's, the order of this row.
    expectations = z_from_probabilities(runner.probabilities(np.hstack([angles, weights])), qubits)
    out = network.head(torch.as_tensor(expectations, dtype=torch.float64)).squeeze(-1).numpy()
    if emit is not None:
        emit.progress(94, "metrics and charts", "post-processing")
    return np.asarray(out, dtype=np.float64)


# ----------------------------------------------------------------------------------------------------
# Artifacts: model.pt (the network's state_dict) and model.json (everything else), for inference.


@dataclass
class QuantumForecastPredictor:
    """The Predictor interface of ``ml/artifacts.py``: ``features``, ``target``, ``predict_frame``."""

    fitted: FittedQuantumForecaster

    @property
    def features(self) -> list[str]:
        return list(self.fitted.training_features)

    @property
    def target(self) -> str:
        return self.fitted.prediction_feature

    def predict_frame(self, frame: pd.DataFrame) -> tuple[list[float], list[float]]:
        """(actual, predicted) of the prediction feature for rows ``window``.. of ``frame``; missing
        columns are refused with a :class:`DatasetError` naming them."""
        from qmlstudio_worker.ml.datasets import DatasetError

        needed = list(dict.fromkeys([*self.features, self.target]))
        missing = [c for c in needed if c not in frame.columns]
        if missing:
            raise DatasetError(f"The data has no column(s): {', '.join(missing)}.")
        try:
            predicted = self.fitted.predict(frame)
        except ValueError as exc:
            raise DatasetError(str(exc)) from None
        actual = pd.to_numeric(frame[self.target], errors="coerce").to_numpy(dtype="float64")[
            self.fitted.first_target :
        ]
        return [float(v) for v in actual], [float(v) for v in predicted]


def save(output_dir: Path | str, fitted: FittedQuantumForecaster, problem: str) -> dict[str, str]:
    """Write model.pt and model.json into ``output_dir``; returns {artifact name: file name}."""
    import torch

    directory = Path(output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    torch.save(fitted.network.state_dict(), directory / "model.pt")
    card = {
        "format_version": 2,  # 2: preprocessing.target_mode (1: levels, still loaded)
        "problem": problem,
        "framework": FRAMEWORK,
        "model": fitted.model,
        "model_name": MODEL_NAME,
        "features": list(fitted.training_features),
        "target": fitted.prediction_feature,
        "window": fitted.window,
        "normalization": fitted.feature_normalizer.normalization,
        "missing_values": fitted.imputer.strategy if fitted.imputer is not None else "remove_rows",
        "architecture": fitted.architecture(),
        "preprocessing": fitted.to_dict(),
        "weights": "model.pt",
        "files": {"model": "model.pt", "model_card": "model.json"},
    }
    (directory / "model.json").write_text(json.dumps(card, indent=2), encoding="utf-8")
    return {"model": "model.pt", "model_card": "model.json"}


def load(model_dir: Path | str) -> QuantumForecastPredictor:
    """The predictor saved by :func:`save` in ``model_dir``."""
    import torch

    directory = Path(model_dir)
    card = json.loads((directory / "model.json").read_text(encoding="utf-8"))
    if card.get("framework") != FRAMEWORK:
        raise ValueError(f"model.json in {directory.name} is not a {FRAMEWORK} model")
    prep = card["preprocessing"]
    network = build_network(
        int(prep["n_inputs"]), int(prep["qubits"]), int(prep["reps"]), prep["hidden_layers"]
    )
    network.load_state_dict(torch.load(directory / card["weights"], weights_only=True))
    network.eval()
    imputer = imputer_from_dict(prep["imputer"])
    fitted = FittedQuantumForecaster(
        model=prep["model"],
        network=network,
        training_features=list(prep["training_features"]),
        prediction_feature=prep["prediction_feature"],
        window=int(prep["window"]),
        hidden_layers=prep["hidden_layers"],
        feature_normalizer=MinMaxNormalizer.from_dict(prep["feature_normalizer"]),
        target_normalizer=MinMaxNormalizer.from_dict(prep["target_normalizer"]),
        imputer=imputer,
        target_mode=str(prep.get("target_mode", "level")),  # format 1 models predict levels
        inputs=ForecastInputs.from_dict(prep["inputs"]) if prep.get("inputs") else None,
        qubits=int(prep["qubits"]),
        reps=int(prep["reps"]),
        n_inputs=int(prep["n_inputs"]),
    )
    return QuantumForecastPredictor(fitted)
