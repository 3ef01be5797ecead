"""The IBM device path (quantum/devices.py) against the real qiskit-ibm-runtime client, talking to a stand-in
IBM Quantum Platform on this machine (ibm_standin.py) instead of local testing mode: a rejected API key, an
unreachable platform, the device list (also through the worker's devices command), and a device job that
queues, shows the device's queue, and is cancelled at the provider when Stop arrives."""

from __future__ import annotations

import io
import json
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from ibm_standin import IAM_URL, IBMStandIn, StandInJob, running

from qmlstudio_worker.protocol import EXIT_OK, Emitter
from qmlstudio_worker.quantum import devices
from qmlstudio_worker.quantum.devices import DeviceError, open_device, prepare_device

Lines = list[dict[str, Any]]
KEY = "standin-api-key"


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[IBMStandIn]:
    platform = IBMStandIn(devices={"ibm_kyiv": (12, True), "ibm_torino": (3, False)})
    with running(platform):
        monkeypatch.setenv("IAM_URL", IAM_URL)
        monkeypatch.setattr(devices, "SERVICE_OPTIONS", platform.service_options())
        yield platform


def test_a_rejected_api_key_fails_the_run_and_the_device_list_saying_so(standin: IBMStandIn) -> None:
    with pytest.raises(DeviceError) as run:
        open_device("ibm_kyiv", "not-my-key")
    assert run.value.message == devices.REJECTED_TOKEN
    assert run.value.field == "/params/actual_quantum_device_token"
    with pytest.raises(DeviceError) as listing:
        devices.list_devices("not-my-key")
    assert listing.value.message == devices.REJECTED_TOKEN
    assert listing.value.field == "/token"
    # IAM refused the key: nothing reached the Quantum API.
    assert standin.calls("iam.")
    assert not standin.calls("quantum.")


def test_an_unreachable_platform_is_said_as_such_not_blamed_on_the_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there: every connection is refused
    monkeypatch.setenv("IAM_URL", IAM_URL)
    options = {"url": "http://cloud.ibm.com", "proxies": {"urls": {"http": f"http://127.0.0.1:{port}"}}}
    monkeypatch.setattr(devices, "SERVICE_OPTIONS", options)
    for attempt in (lambda: open_device("ibm_kyiv", KEY), lambda: devices.list_devices(KEY)):
        with pytest.raises(DeviceError) as offline:
            attempt()
        assert offline.value.message == devices.NO_NETWORK.format(
            reason="iam.cloud.ibm.com: Connection refused"
        )
        assert offline.value.field is None


def test_the_device_list_comes_from_the_platform_and_the_reach_check_covers_its_hosts(
    standin: IBMStandIn, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from qmlstudio_worker import cli

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({"token": KEY})))
    out = io.StringIO()
    assert cli._command_devices(out, None) == EXIT_OK  # type: ignore[arg-type]
    (line,) = [json.loads(raw) for raw in out.getvalue().splitlines()]
    assert line["type"] == "result"
    assert line["data"]["devices"] == [
        {
            "name": "ibm_kyiv",
            "qubits": 127,
            "status": "online",
            "status_message": "active",
            "pending_jobs": 12,
        },
        {
            "name": "ibm_torino",
            "qubits": 133,
            "status": "offline",
            "status_message": "maintenance",
            "pending_jobs": 3,
        },
    ]
    assert KEY not in out.getvalue() + "".join(capfd.readouterr())
    with pytest.raises(DeviceError) as unknown:  # a device the token's instance does not have
        open_device("ibm_nowhere", KEY)
    assert unknown.value.message == devices.NO_DEVICE.format(device="ibm_nowhere")
    assert unknown.value.field == "/params/quantum_device_backend"
    # Every host the client talked to is one reach_ibm probes before a real run.
    assert {host for _, host, _ in standin.requests} == set(devices.IBM_HOSTS)


def _bell() -> tuple[Any, Any]:
    from qiskit import QuantumCircuit
    from qiskit.circuit import Parameter

    theta = Parameter("t")
    bell = QuantumCircuit(2)
    bell.ry(theta, 0)
    bell.cx(0, 1)
    return bell, theta


def test_a_device_job_queues_runs_and_its_result_is_read_through_the_real_client(
    standin: IBMStandIn, monkeypatch: pytest.MonkeyPatch, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    monkeypatch.setattr(devices, "POLL_SECONDS", 0.01)
    bell, theta = _bell()
    stream = io.StringIO()
    circuit = prepare_device(bell, [theta], open_device("ibm_kyiv", KEY), 400, 3, Emitter(stream))
    probs = circuit.probabilities(np.array([[np.pi], [0.0]]))
    # The stand-in ran the submitted executor program on Aer with kyiv's noise and sent IBM's result format.
    assert probs.shape == (2, 4)
    assert probs[0, 3] > 0.85  # RY(pi) then CX: |11>
    assert probs[1, 0] > 0.85
    assert np.allclose(probs.sum(axis=1), 1.0)
    (job,) = standin.jobs.values()
    assert (job.program, job.backend) == ("executor", "ibm_kyiv")
    assert job.params["quantum_program"]["shots"] == 400
    lines = parse_protocol_lines(stream.getvalue())
    stages = [line["stage"] for line in lines if line["type"] == "progress"]
    assert stages == [
        "Queued at the provider (12 jobs pending on ibm_kyiv)",
        "Running on ibm_kyiv at the provider",
    ]
    assert circuit.summary()["provider_job_ids"] == [job.id]
    assert circuit.summary()["circuits_run"] == 2


def test_a_failed_provider_job_fails_the_run_with_ibms_reason(
    standin: IBMStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(devices, "POLL_SECONDS", 0.01)
    standin.job_states = ["Queued", "Running", "Failed"]
    bell, theta = _bell()
    circuit = prepare_device(bell, [theta], open_device("ibm_kyiv", KEY), 100, 3)
    with pytest.raises(DeviceError) as failed:
        circuit.probabilities(np.array([[0.5]]))
    assert failed.value.message == (
        "IBM job standin-1 on ibm_kyiv failed at the provider: Error code 1517; Job failed on the device."
    )
    assert failed.value.field is None


def test_a_queued_device_job_shows_the_devices_queue_and_stop_cancels_it_at_the_provider(
    standin: IBMStandIn, monkeypatch: pytest.MonkeyPatch, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    standin.job_states = ["Queued"]  # it never leaves the queue by itself
    main = threading.main_thread().ident
    assert main is not None

    pressed: list[str] = []

    def press_stop(job: StandInJob) -> None:  # the server's Stop (SIGTERM) while the job waits in the queue
        if job.reads >= 3 and not pressed:
            pressed.append(job.id)
            signal.pthread_kill(main, signal.SIGTERM)

    standin.on_job_read = press_stop
    killed: list[int] = []
    monkeypatch.setattr(devices.os, "kill", lambda pid, sig: killed.append(sig))
    monkeypatch.setattr(devices, "POLL_SECONDS", 0.01)
    before = signal.getsignal(signal.SIGTERM)

    bell, theta = _bell()
    backend = open_device("ibm_kyiv", KEY)
    assert backend.name == "ibm_kyiv"
    assert backend.num_qubits == 127
    stream = io.StringIO()
    emit = Emitter(stream)
    emit.progress(30, "training")
    circuit = prepare_device(bell, [theta], backend, 100, 3, emit)
    with pytest.raises(DeviceError) as cancelled:  # (in the worker the process has ended by then)
        circuit.probabilities(np.array([[np.pi], [0.0]]))
    signal.signal(signal.SIGTERM, before)
    assert cancelled.value.message == "IBM job standin-1 on ibm_kyiv was cancelled at the provider."

    (job,) = standin.jobs.values()
    assert (job.program, job.backend, job.cancelled) == ("executor", "ibm_kyiv", True)
    assert f"POST /api/v1/jobs/{job.id}/cancel" in standin.calls("quantum.")
    assert killed == [signal.SIGTERM]  # then the process ends as Stop asked
    lines = parse_protocol_lines(stream.getvalue())
    reports = [line for line in lines if line["type"] == "progress" and "provider" in line]
    assert reports[0]["stage"] == "Queued at the provider (12 jobs pending on ibm_kyiv)"
    assert reports[0]["provider"] == {"job_id": job.id, "state": "QUEUED", "queue_position": None}
    logs = [line["message"] for line in lines if line["type"] == "log"]
    assert f"IBM job {job.id} submitted to ibm_kyiv (2 circuits)" in logs
    assert f"IBM job {job.id} cancelled" in logs
    assert circuit.summary()["provider_job_ids"] == [job.id]
