"""The exact statevector simulation (against qiskit.quantum_info.Statevector to 1e-10) and the hybrid QNN
forecaster on the stock example's rows: determinism, training that lowers the loss, the persistence
baseline on the same targets, protocol-valid lines, and save/load for inference."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from qiskit.quantum_info import SparsePauliOp, Statevector

from qmlstudio_worker.ml.datasets import DatasetError
from qmlstudio_worker.ml.forecast_metrics import persistence_forecast, regression_metrics
from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum import hybrid
from qmlstudio_worker.quantum.devices import DeviceTarget
from qmlstudio_worker.quantum.statevector import (
    PQC_NAMES,
    Ansatz,
    qiskit_feature_map,
    zero_state,
    zz_feature_map_states,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
STOCK_CSV = REPO_ROOT / "samples" / "apple_google_stock.csv"
FEATURES = ["Close", "High", "Low", "Open"]


@pytest.fixture(scope="module")
def stock() -> pd.DataFrame:
    return pd.read_csv(STOCK_CSV).head(100)


def _z_expectations(state: Statevector, n: int) -> list[float]:
    return [
        float(state.expectation_value(SparsePauliOp("I" * (n - 1 - q) + "Z" + "I" * q)).real)
        for q in range(n)
    ]


@pytest.mark.parametrize("qubits", [4, 5, 7])
def test_quantum_layer_equals_qiskit_statevector(qubits: int) -> None:
    rng = np.random.default_rng(qubits)
    ansatz = Ansatz("RealAmplitudes", qubits, hybrid.DEFAULT_REPS)
    angles = rng.uniform(-4, 4, (3, qubits))
    weights = rng.uniform(-np.pi, np.pi, ansatz.num_parameters)
    ours = hybrid.quantum_layer(torch.tensor(angles), torch.tensor(weights), ansatz).numpy()
    circuit = hybrid.qiskit_circuit(qubits, hybrid.DEFAULT_REPS)
    assert circuit.num_parameters == qubits + ansatz.num_parameters
    for row in range(3):
        reference = Statevector(circuit.assign_parameters([*angles[row], *weights]))
        assert np.abs(ours[row] - _z_expectations(reference, qubits)).max() < 1e-10


@pytest.mark.parametrize("name", PQC_NAMES)
@pytest.mark.parametrize("reps", [1, 3])
def test_ansatz_states_equal_qiskit_library_circuits(name: str, reps: int) -> None:
    rng = np.random.default_rng(reps)
    ansatz = Ansatz(name, 4, reps)
    circuit = ansatz.qiskit_circuit()
    assert circuit.num_parameters == ansatz.num_parameters
    weights = rng.uniform(-np.pi, np.pi, ansatz.num_parameters)
    reference = Statevector(circuit.assign_parameters(weights)).data
    start = zero_state(4, 1, ansatz.complex_amplitudes)
    assert np.abs(ansatz.apply(start, torch.tensor(weights))[0].numpy() - reference).max() < 1e-10
    assert np.abs(ansatz.apply_gates(start, torch.tensor(weights))[0].numpy() - reference).max() < 1e-10
    unitary = ansatz.unitary(torch.tensor(weights)).numpy()
    assert np.abs(unitary[:, 0] - reference).max() < 1e-10


def test_zz_feature_map_equals_qiskit() -> None:
    rng = np.random.default_rng(7)
    x = rng.uniform(0, np.pi, (4, 3))
    ours = zz_feature_map_states(x).numpy()
    circuit = qiskit_feature_map(3)
    for row in range(4):
        assert np.abs(ours[row] - Statevector(circuit.assign_parameters(x[row])).data).max() < 1e-10


def _train(frame: pd.DataFrame, seed: int = 42, emit: Emitter | None = None, epochs: int = 8) -> tuple:
    return hybrid.train_quantum_forecaster(
        frame,
        training_features=FEATURES,
        prediction_feature="Close",
        train_share=0.6,
        epochs=epochs,
        learning_rate=0.01,
        qubits=5,
        hidden_layers=16,
        seed=seed,
        emit=emit,
    )


def test_same_seed_same_metrics_and_training_lowers_the_loss(stock: pd.DataFrame) -> None:
    first, _ = _train(stock)
    again, _ = _train(stock)
    other, _ = _train(stock, seed=7)
    assert first["metrics"] == again["metrics"]
    assert first["loss"] == again["loss"]
    assert first["loss"] != other["loss"]
    # It starts at persistence (zero output layer), which a price series barely improves on: training
    # moves the network (the losses change), the kept epoch is chosen on held-out training windows.
    assert len(set(first["loss"]["train"])) > 1
    assert first["circuit"]["qubits"] == 5
    assert first["circuit"]["two_qubit_gates"] == 2 * 4  # reps 2 x (qubits - 1) CX
    assert first["model"] == "Quantum"


def test_metrics_and_baseline_on_the_same_test_targets(stock: pd.DataFrame) -> None:
    result, _ = _train(stock)
    close = stock["Close"].to_numpy(dtype=float)
    assert result["data"]["train_rows"] == 60
    assert result["data"]["test_windows"] == 40
    assert result["data"]["actual"] == close[60:].tolist()
    expected = regression_metrics(close[60:], result["data"]["predicted"], close[59:-1])
    assert result["metrics"] == pytest.approx(expected)
    persistence = regression_metrics(close[60:], persistence_forecast(close, 60), close[59:-1])
    assert result["baselines"]["persistence"] == pytest.approx(persistence)


def test_emits_protocol_lines(stock: pd.DataFrame) -> None:
    stream = io.StringIO()
    _train(stock, emit=Emitter(stream), epochs=5)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    stages = [line["stage"] for line in lines if line["type"] == "progress"]
    assert "epoch 5/5" in stages
    losses = [line for line in lines if line["type"] == "metric" and line["name"] == "train_loss"]
    assert [line["step"] for line in losses] == [1, 2, 3, 4, 5]
    assert {line["name"] for line in lines if line["type"] == "metric"} >= {"rmse", "persistence_rmse"}
    assert len([line for line in lines if line["type"] == "chart"]) == 3


def test_save_and_load_predict_the_same(stock: pd.DataFrame, tmp_path: Path) -> None:
    result, fitted = _train(stock, epochs=5)
    files = hybrid.save(tmp_path, fitted, "stock-price-prediction")
    assert files == {"model": "model.pt", "model_card": "model.json"}
    card = json.loads((tmp_path / "model.json").read_text())
    assert card["framework"] == "torch-quantum"
    assert card["problem"] == "stock-price-prediction"
    assert card["features"] == FEATURES
    predictor = hybrid.load(tmp_path)
    assert predictor.features == FEATURES
    assert predictor.target == "Close"
    test_rows = stock.iloc[50:].reset_index(drop=True)  # window 10 before the 40 test targets
    actual, predicted = predictor.predict_frame(test_rows)
    assert actual == pytest.approx(result["data"]["actual"])
    assert predicted == pytest.approx(result["data"]["predicted"], abs=1e-9)
    with pytest.raises(DatasetError, match="High"):
        predictor.predict_frame(stock.drop(columns=["High"]))


def test_without_hidden_layers_the_encoder_is_one_linear_map(stock: pd.DataFrame) -> None:
    result, fitted = hybrid.train_quantum_forecaster(
        stock,
        training_features=["Close"],
        prediction_feature="Close",
        train_share=0.7,
        epochs=5,
        learning_rate=0.05,
        qubits=4,
        window=5,
        seed=1,
    )
    assert result["architecture"]["encoder"] == "linear"
    # Each window row: Close, and the calendar (day of week) of the row it forecasts.
    assert fitted.inputs.width == 3
    assert fitted.network.encoder.in_features == 5 * 3
    assert result["data"]["test_windows"] == 30
    with pytest.raises(ValueError, match="qubits"):
        hybrid.build_network(5, 0)


def test_z_from_probabilities_matches_the_statevector() -> None:
    rng = np.random.default_rng(3)
    ansatz = Ansatz("RealAmplitudes", 3, hybrid.DEFAULT_REPS)
    angles = rng.uniform(-2, 2, (2, 3))
    weights = rng.uniform(-np.pi, np.pi, ansatz.num_parameters)
    circuit = hybrid.qiskit_circuit(3, hybrid.DEFAULT_REPS)
    for row in range(2):
        state = Statevector(circuit.assign_parameters([*angles[row], *weights]))
        ours = hybrid.z_from_probabilities(state.probabilities()[None, :], 3)[0]
        assert np.abs(ours - _z_expectations(state, 3)).max() < 1e-12


def _train_noisy(
    frame: pd.DataFrame,
    noise: str | None,
    shots: int | None = None,
    seed: int = 42,
    device: DeviceTarget | None = None,
    epochs: int = 4,
) -> tuple:
    return hybrid.train_quantum_forecaster(
        frame,
        training_features=FEATURES,
        prediction_feature="Close",
        train_share=0.6,
        epochs=epochs,
        learning_rate=0.05,
        qubits=4,
        seed=seed,
        noise_model=noise,
        shots=shots,
        device=device,
    )


def test_under_a_noise_model_the_network_trains_on_the_noisy_channel(stock: pd.DataFrame) -> None:
    exact, _ = _train_noisy(stock, None)
    noisy, fitted = _train_noisy(stock, "fake_kyiv", 2048)
    again, _ = _train_noisy(stock, "fake_kyiv", 2048)
    # Trained under the device's noise: another loss history than the exact training, and it falls.
    assert noisy["loss"] != exact["loss"]
    assert len(set(noisy["loss"]["train"])) > 1
    # The same seed repeats the noisy training and the shot-sampled test predictions exactly.
    assert noisy["loss"] == again["loss"]
    assert noisy["metrics"] == again["metrics"]
    assert noisy["noise_model"] == "fake_kyiv"
    assert noisy["simulation"].startswith("trained on the exact noisy channel")
    assert "noise model fake_kyiv" in noisy["simulation"]
    assert "2048 shots" in noisy["simulation"]  # the test predictions: Aer with shots
    training = noisy["noisy_training"]
    assert training["active_qubits"] == 4
    assert training["rows_simulated"] > 4 * noisy["data"]["train_windows"]  # every epoch's batches
    run = noisy["backend_run"]
    assert (run["device"], run["shots"]) == ("fake_kyiv", 2048)
    assert run["circuits_run"] == noisy["data"]["test_windows"]
    assert exact["backend_run"] is None
    assert exact["noisy_training"] is None
    assert noisy["saved_model_predicts"] == hybrid.SAVED_MODEL_PREDICTS
    assert fitted.network.noisy is None  # the saved model predicts exactly
    assert fitted.predict(stock).shape == (len(stock) - fitted.window,)


def test_the_noisy_training_loss_is_the_noisy_models(stock: pd.DataFrame) -> None:
    """The reported final test loss is the trained network's with the noisy layer, not the exact one."""
    import torch

    from qmlstudio_worker.quantum.backends import prepare_noisy
    from qmlstudio_worker.quantum.noisy_density import from_noisy_circuit

    # A seed whose kept weights are a trained epoch's (the untrained network's output ignores the noise).
    result, fitted = _train_noisy(stock, "fake_torino", 1024, seed=3)
    windows = hybrid.prepare_windows(
        stock,
        FEATURES,
        "Close",
        from_index=None,
        to_index=None,
        train_share=0.6,
        window=fitted.window,
        missing_values="impute_average",
        normalization="[0,1]",
        seed=3,
    )
    circuit = hybrid.qiskit_circuit(4, hybrid.DEFAULT_REPS)
    noisy = prepare_noisy(circuit, list(circuit.parameters), "fake_torino", 1024, 3)
    x, y = torch.as_tensor(windows.x_test), torch.as_tensor(windows.y_test)
    with torch.no_grad():
        fitted.network.noisy = from_noisy_circuit(noisy)
        noisy_loss = float(torch.nn.functional.mse_loss(fitted.network(x), y))
        fitted.network.noisy = None
        exact_loss = float(torch.nn.functional.mse_loss(fitted.network(x), y))
    kept = result["data"]["kept_epoch"]  # the weights kept are that epoch's (chosen on held-out windows)
    assert kept >= 1
    assert result["loss"]["test"][kept - 1] == pytest.approx(noisy_loss, abs=1e-12)
    assert abs(noisy_loss - exact_loss) > 1e-6


def test_on_a_device_it_trains_under_the_devices_calibration_and_predicts_on_it(stock: pd.DataFrame) -> None:
    from qiskit_ibm_runtime.fake_provider import FakeKyiv

    device = DeviceTarget("ibm_kyiv", local_backend=FakeKyiv())
    # One epoch each (the noisy training's learning is checked above): the device path and the noise model
    # must give the same losses.
    result, _ = _train_noisy(stock, None, 512, device=device, epochs=1)
    with_noise_model, _ = _train_noisy(stock, "fake_kyiv", 512, epochs=1)
    # FakeKyiv's calibration is the fake_kyiv noise model's: the same noisy training
    assert result["loss"] == with_noise_model["loss"]
    assert result["device"] == "ibm_kyiv"
    assert "the calibration of fake_kyiv" in result["simulation"]
    run = result["backend_run"]
    assert run["local_testing_mode"] is True
    assert run["shots"] == 512
    assert len(run["provider_job_ids"]) == 1
    assert run["circuits_run"] == result["data"]["test_windows"]


def test_noisy_training_above_the_qubit_limit_is_refused(stock: pd.DataFrame) -> None:
    from qmlstudio_worker.quantum.noisy_density import NOISY_TRAINING_LIMITS, NoisyDensityError

    limit = NOISY_TRAINING_LIMITS["hybrid"]
    with pytest.raises(NoisyDensityError, match=f"at most {limit} qubits"):
        hybrid.train_quantum_forecaster(
            stock,
            training_features=FEATURES,
            prediction_feature="Close",
            train_share=0.6,
            epochs=1,
            learning_rate=0.01,
            qubits=limit + 1,
            noise_model="fake_kyiv",
        )


def _stock_job(extension: dict[str, object], **changes: object) -> tuple[int, list[dict[str, object]]]:
    from conftest import REPO_ROOT, dataset_entry

    from qmlstudio_worker.jobs.runner import run_job

    path = REPO_ROOT / "src" / "generated" / "fixtures" / "stock-price-prediction.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Quantum"]
    # The schema's fewest epochs on 40 of the example's 100 rows: these jobs check the plumbing (noise
    # model, device, refusal); test_under_a_noise_model_the_network_trains_on_the_noisy_channel checks
    # learning under noise.
    body = {**request["body"], "epochs": 5, "to_index": 40, "qubits": 4, **changes}
    dataset = dataset_entry(REPO_ROOT / "samples" / "apple_google_stock.csv")
    envelope = {
        "kind": "stock-price-prediction",
        "job_id": "5",
        "params": body,
        "extension": {"dataset": dataset, "seed": 42, **extension},
    }
    stream = io.StringIO()
    code = run_job(json.dumps(envelope), Emitter(stream))
    return code, [json.loads(line) for line in stream.getvalue().splitlines()]


def test_the_stock_job_trains_under_a_noise_model_and_on_a_device(monkeypatch: pytest.MonkeyPatch) -> None:
    from qmlstudio_worker.quantum import devices

    code, lines = _stock_job({"quantum_noise_model": "fake_kyiv"})
    assert code == 0, lines[-1]
    result = lines[-1]["data"]
    run = result["quantum_run"]
    assert run["noise_model"] == "fake_kyiv"
    assert run["backend_run"]["shots"] == 1024  # the body's 0 shots: the noisy default
    assert run["noisy_training"]["active_qubits"] == 4
    assert run["simulation"].startswith("trained on the exact noisy channel")
    phases = [line.get("phase") for line in lines if line["type"] == "progress" and line.get("phase")]
    assert phases == ["preparing", "executing", "post-processing"]
    monkeypatch.setenv(devices.LOCAL_TESTING_ENV, "1")
    # a 7-qubit device: the job's device path is the same on any (the device-equals-noise-model test above
    # runs on ibm_kyiv)
    code, lines = _stock_job({}, use_quantum_simulator=False, quantum_device_backend="ibm_perth")
    assert code == 0, lines[-1]
    run = lines[-1]["data"]["quantum_run"]
    assert run["device"] == "ibm_perth"
    assert run["backend_run"]["local_testing_mode"] is True
    code, lines = _stock_job({"quantum_noise_model": "fake_kyiv"}, qubits=9)
    assert code == 2
    assert lines[-1]["field"] == "/params/qubits"
    assert "Noisy training of 9 qubits" in lines[-1]["message"]


def test_on_a_trending_series_it_is_not_far_worse_than_persistence() -> None:
    # The network predicts the change from the last close (recurrent.prepare_windows); predicting the
    # level through a [0,1] scaler fitted on the training part measured 12-16x persistence's RMSE here,
    # 0.92-0.95x now.
    rng = np.random.default_rng(1)
    close = 100 + 0.5 * np.arange(200) + np.cumsum(rng.normal(0, 1, 200))
    frame = pd.DataFrame({"Close": close, "Open": close + rng.normal(0, 0.5, 200)})
    result, fitted = hybrid.train_quantum_forecaster(
        frame,
        training_features=["Close", "Open"],
        prediction_feature="Close",
        train_share=0.7,
        epochs=20,
        learning_rate=0.01,
        qubits=4,
        hidden_layers=16,
        seed=0,
        date_column=None,
    )
    assert fitted.target_mode == "change"
    assert result["metrics"]["rmse"] <= 1.25 * result["baselines"]["persistence"]["rmse"]


def test_a_format_1_model_predicting_levels_still_loads(stock: pd.DataFrame, tmp_path: Path) -> None:
    _, fitted = _train(stock, epochs=2)
    hybrid.save(tmp_path, fitted, "stock-price-prediction")
    card_path = tmp_path / "model.json"
    card = json.loads(card_path.read_text())
    assert card["format_version"] == 2
    assert card["preprocessing"]["target_mode"] == "change"
    test_rows = stock.iloc[50:].reset_index(drop=True)
    _, predicted = hybrid.load(tmp_path).predict_frame(test_rows)
    card["format_version"] = 1
    del card["preprocessing"]["target_mode"]
    card_path.write_text(json.dumps(card))
    old = hybrid.load(tmp_path)
    assert old.fitted.target_mode == "level"
    _, levels = old.predict_frame(test_rows)
    # The same network output, read as a level instead of a change from the previous close.
    changes = np.asarray(predicted) - test_rows["Close"].to_numpy()[9:-1]
    assert levels == pytest.approx(changes.tolist(), abs=1e-9)
