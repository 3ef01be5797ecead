"""Real IBM devices (quantum/devices.py) in qiskit-ibm-runtime's local testing mode: fake backends, no
token, no network. The user-facing refusals (no token, rejected token, unreachable IBM Quantum), the provider
job id on the output, and Stop cancelling the provider job."""

from __future__ import annotations

import io
import json
import signal
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from conftest import REPO_ROOT, dataset_entry

from qmlstudio_worker.jobs.runner import run_job
from qmlstudio_worker.protocol import EXIT_OK, EXIT_VALIDATION_ERROR, Emitter
from qmlstudio_worker.quantum import devices
from qmlstudio_worker.quantum.devices import DeviceError, cancel_on_stop, open_device, prepare_device

Lines = list[dict[str, Any]]
SAMPLES = REPO_ROOT / "samples"
# The device the local-testing runs use: a 7-qubit snapshot (ibm_perth -> FakePerth). What these tests check
# (transpiling for the device, a provider job per evaluation, its id and log lines) is the same on any
# device; a 127-qubit one (ibm_kyiv) costs ~5 CPU-s per provider job in Aer's local simulation of it.
DEVICE = "ibm_perth"


def _portfolio_device_body(**changes: Any) -> dict[str, Any]:
    path = REPO_ROOT / "src" / "generated" / "fixtures" / "portfolio-optimization.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Classical"]
    return {
        **request["body"],
        "model": "QAOA",
        "use_quantum_simulator": False,
        "quantum_device_backend": DEVICE,
        "quantum_shots": 256,
        "optimizer_alg": "COBYLA",
        "optimizer_alg_maxiter": 1,
        "circuit_repetition": 1,
        **changes,
    }


def _run(body: dict[str, Any], parse: Callable[[str], Lines]) -> tuple[int, Lines]:
    extension: dict[str, Any] = {
        "dataset": dataset_entry(SAMPLES / "five_companies_stock.csv"),
        "seed": 42,
    }
    envelope = {"kind": "portfolio-optimization", "job_id": "9", "params": body, "extension": extension}
    stream = io.StringIO()
    code = run_job(json.dumps(envelope), Emitter(stream))
    return code, parse(stream.getvalue())


def test_without_a_token_a_device_run_fails_saying_so(parse_protocol_lines: Callable[[str], Lines]) -> None:
    code, lines = _run(_portfolio_device_body(actual_quantum_device_token=None), parse_protocol_lines)
    assert code == EXIT_VALIDATION_ERROR
    assert lines[-1]["field"] == "/params/actual_quantum_device_token"
    assert lines[-1]["message"].startswith(f"Running on the IBM device {DEVICE} needs an IBM Quantum token")


def test_an_unreachable_ibm_quantum_and_a_rejected_token_are_said_in_plain_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(DeviceError) as offline:
        devices.reach_ibm(hosts=("qmlstudio-test.invalid",), timeout=1.0)
    assert offline.value.message.startswith("IBM Quantum could not be reached (qmlstudio-test.invalid:")
    assert offline.value.field is None

    import qiskit_ibm_runtime
    from qiskit_ibm_runtime.accounts.exceptions import InvalidAccountError

    def refuse(**_: Any) -> None:
        raise InvalidAccountError("Unable to retrieve instances.")

    monkeypatch.setattr(qiskit_ibm_runtime, "QiskitRuntimeService", refuse)
    with pytest.raises(DeviceError) as rejected:
        open_device("ibm_kyiv", "not-a-token", reach=lambda: None)
    assert rejected.value.message == devices.REJECTED_TOKEN
    assert rejected.value.field == "/params/actual_quantum_device_token"
    assert "not-a-token" not in repr(devices.DeviceTarget("ibm_kyiv", "not-a-token"))


def test_a_device_circuit_is_isa_transpiled_and_its_provider_job_is_logged() -> None:
    from qiskit import QuantumCircuit
    from qiskit.circuit import Parameter
    from qiskit_ibm_runtime.fake_provider import FakePerth

    theta = Parameter("t")
    bell = QuantumCircuit(2)
    bell.ry(theta, 0)
    bell.cx(0, 1)
    stream = io.StringIO()
    circuit = prepare_device(bell, [theta], FakePerth(), 2000, 3, Emitter(stream), local=True)
    # FakePerth's basis gates (no ry): the circuit was transpiled for the device
    assert set(circuit.circuit.count_ops()) <= {"rz", "sx", "x", "cx", "measure", "barrier"}
    probs = circuit.probabilities(np.array([[np.pi], [0.0]]))
    assert probs.shape == (2, 4)
    assert probs[0, 3] > 0.85  # RY(pi) then CX: |11> up to the device's noise
    assert probs[1, 0] > 0.85
    again = prepare_device(bell, [theta], FakePerth(), 2000, 3, None, local=True)
    assert np.array_equal(again.probabilities(np.array([[np.pi], [0.0]])), probs)  # seeded: repeats
    assert "client-side Sampler" in circuit.describe()
    summary = circuit.summary()
    assert summary["local_testing_mode"] is True
    assert len(summary["provider_job_ids"]) == 1
    job_id = summary["provider_job_ids"][0]
    assert f"IBM job {job_id} submitted to fake_perth (2 circuits)" in stream.getvalue()


def test_stop_cancels_the_pending_provider_job_then_ends_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    class Job:
        cancelled = False

        def cancel(self) -> None:
            Job.cancelled = True

        def job_id(self) -> str:
            return "d1234"

    killed: list[int] = []
    monkeypatch.setattr(devices.os, "kill", lambda pid, sig: killed.append(sig))
    before = signal.getsignal(signal.SIGTERM)
    stream = io.StringIO()
    with cancel_on_stop(Job(), Emitter(stream)):
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        handler(signal.SIGTERM, None)
    assert Job.cancelled
    assert killed == [signal.SIGTERM]
    assert "IBM job d1234 cancelled" in stream.getvalue()
    signal.signal(signal.SIGTERM, before)


def test_a_portfolio_qaoa_runs_on_a_device_in_local_testing_mode(
    monkeypatch: pytest.MonkeyPatch, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    monkeypatch.setenv(devices.LOCAL_TESTING_ENV, "1")
    code, lines = _run(_portfolio_device_body(), parse_protocol_lines)
    assert code == EXIT_OK, lines[-1]
    text = json.dumps(lines[-1]["data"])
    assert f'"device": "{DEVICE}"' in text
    assert '"local_testing_mode": true' in text
    submitted = [
        line["message"] for line in lines if line["type"] == "log" and "submitted to" in line["message"]
    ]
    assert submitted
    assert all("fake_perth" in message for message in submitted)
    stages = [line["stage"] for line in lines if line["type"] == "progress"]
    assert f"connecting to {DEVICE}" in stages
    assert f"transpiling for {DEVICE}" in stages


def test_the_device_list_names_qubits_status_and_pending_jobs_and_refuses_plainly() -> None:
    from qiskit_ibm_runtime.fake_provider import FakeKyiv, FakeTorino

    class Service:
        def backends(self) -> list[Any]:
            return [FakeTorino(), FakeKyiv()]

    found = devices.list_devices("t0ken", service_factory=lambda token: Service())
    assert [d["name"] for d in found] == ["fake_kyiv", "fake_torino"]
    assert found[0]["qubits"] == 127
    assert found[1]["qubits"] == 133
    assert {d["status"] for d in found} == {"online"}
    assert all(isinstance(d["pending_jobs"], int) for d in found)
    with pytest.raises(DeviceError) as missing:
        devices.list_devices(None)
    assert missing.value.field == "/token"

    from qiskit_ibm_runtime.accounts.exceptions import InvalidAccountError

    def rejected(token: str) -> Any:
        raise InvalidAccountError("Unable to retrieve instances.")

    with pytest.raises(DeviceError) as refused:
        devices.list_devices("t0ken", service_factory=rejected)
    assert refused.value.message == devices.REJECTED_TOKEN


def test_the_devices_command_answers_one_line_without_echoing_the_token(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from qmlstudio_worker import cli

    def offline(*_: Any, **__: Any) -> None:
        raise DeviceError(devices.NO_NETWORK.format(reason="quantum.cloud.ibm.com: timed out"))

    monkeypatch.setattr(devices, "reach_ibm", offline)
    monkeypatch.setattr(devices.list_devices, "__kwdefaults__", {"reach": offline, "service_factory": None})
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({"token": "secret-token-123"})))
    out = io.StringIO()
    assert cli._command_devices(out, None) == EXIT_VALIDATION_ERROR  # type: ignore[arg-type]
    (line,) = [json.loads(raw) for raw in out.getvalue().splitlines()]
    assert line["type"] == "error"
    assert line["message"].startswith("IBM Quantum could not be reached")
    assert "secret-token-123" not in out.getvalue() + "".join(capfd.readouterr())


def test_the_stored_token_from_the_extension_opens_the_device_and_stays_out_of_the_output(
    monkeypatch: pytest.MonkeyPatch, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    seen: list[str | None] = []

    def no_network(self: devices.DeviceTarget) -> Any:
        seen.append(self.token)
        raise DeviceError(devices.NO_NETWORK.format(reason="test"))

    monkeypatch.setattr(devices.DeviceTarget, "open", no_network)
    body = _portfolio_device_body(actual_quantum_device_token=None)
    extension: dict[str, Any] = {
        "dataset": dataset_entry(SAMPLES / "five_companies_stock.csv"),
        "seed": 42,
        "ibm_token": "stored-secret-99",
    }
    stream = io.StringIO()
    envelope = {"kind": "portfolio-optimization", "job_id": "9", "params": body, "extension": extension}
    code = run_job(json.dumps(envelope), Emitter(stream))
    assert code == EXIT_VALIDATION_ERROR
    assert seen == ["stored-secret-99"]
    assert parse_protocol_lines(stream.getvalue())[-1]["message"].startswith(
        "IBM Quantum could not be reached"
    )
    assert "stored-secret-99" not in stream.getvalue()
    # A custom token in the body wins over the stored one.
    seen.clear()
    run_job(
        json.dumps({**envelope, "params": {**body, "actual_quantum_device_token": "custom-1"}}),
        Emitter(io.StringIO()),
    )
    assert seen == ["custom-1"]


class _QueuedJob:
    """A provider job as IBM Quantum reports it, one state per poll: queued (three polls), running, then
    done. IBM Quantum Platform reports no place in the queue (devices.py's docstring)."""

    states: tuple[str, ...] = ("QUEUED", "QUEUED", "QUEUED", "RUNNING", "DONE")

    def __init__(self) -> None:
        self.poll = -1

    def job_id(self) -> str:
        return "d5queue"

    def status(self) -> str:  # one call per poll: the next state
        self.poll += 1
        return self.states[self.poll]


class _Device:
    """A device whose status says how many jobs wait on it (IBM's length_queue), counting the reads."""

    def __init__(self, pending: object) -> None:
        self.pending = pending
        self.reads = 0

    def status(self) -> Any:
        self.reads += 1

        class Status:
            pending_jobs = self.pending

        return Status()


def test_the_providers_state_and_the_devices_queue_become_progress_lines(
    parse_protocol_lines: Callable[[str], Lines],
) -> None:
    from qmlstudio_worker.quantum.devices import wait_for_job

    stream = io.StringIO()
    emit = Emitter(stream)
    emit.progress(40, "training")
    device = _Device(12)
    wait_for_job(_QueuedJob(), "ibm_kyiv", emit, 0, device)
    lines = parse_protocol_lines(stream.getvalue())  # each line valid against the protocol schema
    reports = [line for line in lines if line["type"] == "progress" and "provider" in line]
    # One line per change of state (three queued polls send one), at the job's last percent; the device's
    # queue is read once, on entering the queue; no place in the queue is claimed.
    assert [(r["stage"], r["provider"]["queue_position"]) for r in reports] == [
        ("Queued at the provider (12 jobs pending on ibm_kyiv)", None),
        ("Running on ibm_kyiv at the provider", None),
    ]
    assert device.reads == 1
    assert {(r["phase"], r["percent"], r["provider"]["job_id"]) for r in reports} == {
        ("executing", 40, "d5queue")
    }
    assert "IBM job d5queue: Queued at the provider (12 jobs pending on ibm_kyiv)" in stream.getvalue()


def test_a_failed_provider_job_ends_the_poll() -> None:
    from qmlstudio_worker.quantum.devices import device_queue, provider_stage, wait_for_job

    class Failed(_QueuedJob):
        states = ("QUEUED", "ERROR")

        def done(self) -> bool:  # only DONE counts as done: polling done() would never end
            return False

    failed = Failed()
    wait_for_job(failed, "ibm_kyiv", None, 0)  # returns on ERROR (an IndexError if it polled on)
    assert failed.poll == 1
    assert device_queue(object()) is None  # no status() at all
    assert device_queue(_Device(-1)) is None  # nonsense is not shown
    assert device_queue(_Device(True)) is None
    assert device_queue(_Device(1)) == 1
    assert provider_stage("QUEUED", None, "ibm_kyiv") == "Queued at the provider"
    assert provider_stage("QUEUED", 1, "ibm_kyiv") == "Queued at the provider (1 job pending on ibm_kyiv)"
    assert provider_stage("VALIDATING", None, "ibm_kyiv") == "Validating at the provider"
