"""The QSVC's kernel measured on circuits: without noise it is the exact fidelity kernel up to shot noise,
under a device's noise it differs but stays symmetric and (after the projection) positive semidefinite, it
runs on a device in local testing mode, and a fraud job under a noise model completes saying its caps."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import REPO_ROOT
from test_handlers_financial import result_of, run

from qmlstudio_worker.quantum import backends, devices
from qmlstudio_worker.quantum import kernel_classifier as qsvc
from qmlstudio_worker.quantum import variational_classifier as vqc

Lines = list[dict[str, Any]]
SHOTS = 4096


def _angles(rows: int, seed: int = 5) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.0, 1.2, (rows, 2))


def _runner(noise_model: str, shots: int = SHOTS) -> backends.NoisyCircuit:
    circuit, parameters = qsvc.kernel_circuit(2, 2)
    return backends.prepare_noisy(circuit, parameters, noise_model, shots, seed=11)


def test_without_noise_the_measured_kernel_is_the_exact_one_within_shot_noise() -> None:
    from qiskit_aer import AerSimulator

    angles = _angles(8)
    runner = _runner("fake_kyiv")
    runner.simulator = AerSimulator(method="density_matrix")  # the same ISA circuits, no noise
    measured = qsvc.measured_kernel(runner, angles, angles, symmetric=True)
    exact = qsvc.fidelity_kernel(angles, angles, reps=2, symmetric=True)
    # binomial standard deviation is at most 0.5 / sqrt(4096) = 0.0078: 5 sigma
    assert np.max(np.abs(measured - exact)) < 0.04
    assert runner.circuits_run == 8 * 7 // 2  # one circuit per pair, the diagonal is not run
    cross = qsvc.measured_kernel(runner, angles[:3], angles[3:])
    assert cross.shape == (3, 5)
    assert np.max(np.abs(cross - exact[:3, 3:])) < 0.04


def test_under_device_noise_the_kernel_differs_and_is_symmetric_and_psd_as_built() -> None:
    angles = _angles(10)
    measured = qsvc.measured_kernel(_runner("fake_kyiv"), angles, angles, symmetric=True)
    exact = qsvc.fidelity_kernel(angles, angles, reps=2, symmetric=True)
    off = ~np.eye(10, dtype=bool)
    assert np.mean(np.abs(measured - exact)[off]) > 0.01  # noise, beyond what 4096 shots explain alone
    assert np.mean(measured[off]) < np.mean(exact[off])  # decoherence leaks probability out of all zeros
    assert np.array_equal(measured, measured.T)
    assert np.allclose(np.diag(measured), 1.0)
    projected, lowest = qsvc.nearest_psd(measured)
    assert np.linalg.eigvalsh(projected).min() > -1e-9
    assert np.allclose(projected, projected.T)
    if lowest >= 0:
        assert np.allclose(projected, measured)


def test_noisy_rows_keep_fraud_up_to_half_and_test_rows_are_stratified() -> None:
    y = np.array([1] * 60 + [0] * 940)
    rows = qsvc.noisy_kernel_rows(y, 1, 80, seed=3)
    assert len(rows) == 80
    assert int(y[rows].sum()) == 40
    sample = qsvc.stratified_sample(y, 150, seed=3)
    assert len(sample) == 150
    assert int(y[sample].sum()) == 30  # 6 % would be 9 rows: each class gets at least 20 % of the sample
    assert np.array_equal(sample, qsvc.stratified_sample(y, 150, seed=3))
    common = np.array([1] * 400 + [0] * 600)
    assert int(common[qsvc.stratified_sample(common, 150, seed=3)].sum()) == 60  # 40 %: its own share


def _tiny_fraud(tmp_path: Path, fraud: int = 6, others: int = 34) -> Path:
    frame = pd.read_csv(REPO_ROOT / "samples" / "credit_card_fraud_synthetic.csv")
    small = pd.concat(
        [frame[frame["Class"] == 1].head(fraud), frame[frame["Class"] == 0].head(others)]
    ).sort_index()
    path = tmp_path / "fraud_tiny.csv"
    small.to_csv(path, index=False)
    return path


def _qsvc_body(**changes: Any) -> dict[str, Any]:
    path = REPO_ROOT / "src" / "generated" / "fixtures" / "fraud-detection.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Quantum"]
    body = {**request["body"], "model": qsvc.MODEL, "circuit_repetition": 1, "quantum_shots": 256}
    return {**body, **changes}


def test_a_qsvc_fraud_job_under_a_noise_model_completes_saying_its_caps(
    tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    dataset = _tiny_fraud(tmp_path, 4, 16)  # 20 rows: every kernel pair is a noisy circuit
    code, lines = run(
        "fraud-detection",
        _qsvc_body(),
        dataset,
        tmp_path / "out",
        parse_protocol_lines,
        quantum_noise_model="fake_kyiv",
    )
    data = result_of(code, lines)
    config = data["training_data"]["config"]
    assert config["noise_model"] == "fake_kyiv"
    assert config["kernel_run"].startswith("kernel measured on fake_kyiv with 256 shots:")
    assert "exact" in config["saved_model_predicts"]
    backend = config["backend_run"]
    train_rows = data["training_data"]["train_rows_used"]
    test_rows = config["test_rows_scored"]
    support = data["training_data"]["support_vectors"]
    # every training pair, then every scored test row against the support vectors, ran as a noisy circuit
    assert backend["circuits_run"] == train_rows * (train_rows - 1) // 2 + test_rows * support
    assert sum(sum(row) for row in data["confusion_matrix"]) == test_rows
    logs = [line["message"] for line in lines if line["type"] == "log"]
    assert any("kernel measured on fake_kyiv" in message for message in logs)
    stages = [line["stage"] for line in lines if line["type"] == "progress"]
    assert "transpiling for fake_kyiv" in stages


def test_a_qsvc_fraud_job_runs_on_a_device_in_local_testing_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    monkeypatch.setenv(devices.LOCAL_TESTING_ENV, "1")
    body = _qsvc_body(
        use_quantum_simulator=False,
        quantum_device_backend="ibm_perth",  # 7 qubits: each local provider job simulates the device
        actual_quantum_device_token="local-test-token",
    )
    # each kernel is one local provider job: 20 rows keep it to seconds
    code, lines = run("fraud-detection", body, _tiny_fraud(tmp_path, 4, 16), None, parse_protocol_lines)
    data = result_of(code, lines)
    config = data["training_data"]["config"]
    assert config["device"] == "ibm_perth"
    assert config["backend_run"]["local_testing_mode"] is True
    assert len(config["backend_run"]["provider_job_ids"]) == 2  # the training kernel, then the test kernel
    submitted = [m["message"] for m in lines if m["type"] == "log" and "submitted to" in m["message"]]
    assert len(submitted) == 2


def test_charts_of_a_sampled_test_part_say_how_many_rows_were_scored() -> None:
    assert qsvc.evaluated_part is vqc.evaluated_part  # one wording for both classifiers' charts
    assert qsvc.evaluated_part(40, 40) == "test part"
    assert qsvc.evaluated_part(150, 6_000) == "sampled test rows (150 of 6,000)"
    rng = np.random.default_rng(0)
    y_train, y_test = np.array([1] * 6 + [0] * 18), np.array([1] * 4 + [0] * 12)
    x_train = rng.normal(size=(24, 3)) + y_train[:, None]
    x_test = rng.normal(size=(16, 3)) + y_test[:, None]
    result, _ = qsvc.train_kernel_classifier(
        x_train,
        y_train,
        x_test,
        y_test,
        reps=1,
        shots=128,
        noise_model="fake_kyiv",
        qubits=2,
        max_test_rows=6,
    )
    assert result["config"]["test_rows_scored"] == 6
    titles = [chart["title"] for chart in result["charts"]]
    assert "ROC curve (sampled test rows (6 of 16))" in titles
    assert all("test part" not in title for title in titles)


@pytest.mark.usefixtures("one_timed_call")
def test_the_estimate_under_a_noise_model_counts_the_capped_kernel_circuits() -> None:
    from test_quantum_resource_estimate import quantum_body

    from qmlstudio_worker.jobs.resource_estimate import estimate

    body = quantum_body("fraud-detection", model=qsvc.MODEL, test_ratio=0.3)
    noisy = estimate("fraud-detection", body, rows=20_000, noise_model="fake_kyiv")
    assert noisy["circuit_evaluations"] == 80 * 79 // 2 + 150 * 80  # the caps, not 14,000 x 6,000 rows
    assert noisy["estimated_seconds"] > 0
    assert noisy["note"] is None  # no refusal: the job runs under the noise model
    exact = estimate("fraud-detection", body, rows=20_000)
    # Exact: the kernel of at most 600 rows of the fit part, then the test rows and the quarter of the
    # 14,000 training rows held out to choose the threshold (3,500), each against them.
    assert exact["circuit_evaluations"] == 600 * 599 // 2 + (6_000 + 3_500) * 600
