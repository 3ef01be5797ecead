"""Real IBM quantum devices: a model's circuits run through qiskit-ibm-runtime's client-side Sampler.

:func:`open_device` connects with the user's token (channel ``ibm_quantum_platform``) and finds the device;
no token, a rejected token and an unreachable IBM Quantum each end the job with a plain sentence
(:class:`DeviceError`). The token is never logged or put in a result.

:func:`prepare_device` transpiles the model's measured circuit for the device (ISA: the device's basis
gates, coupling map and layout, seeded) and returns a :class:`DeviceCircuit`, which has the interface of
:class:`.backends.NoisyCircuit` (``probabilities``, ``summary``, ``describe``) so a model runs either.
Each ``probabilities`` call is one provider job (one PUB: the ISA circuit with one parameter row per
sample); its id is logged and kept in the summary, its state is polled into the status timeline
(:func:`wait_for_job`), and while it is pending a SIGTERM (the server's Stop) cancels it at the provider
before the worker exits.

Sampler: ``qiskit_ibm_runtime.executor_sampler.Sampler`` (program ``executor``; pre- and post-processing on
the client). ``qiskit_ibm_runtime.SamplerV2`` is deprecated as of qiskit-ibm-runtime 0.50 in its favour.
Checked on 0.51.0 (pinned): with a fake backend as ``mode`` it runs locally (``Executor.run`` hands it to
``QiskitRuntimeLocalService._run_executor``: Aer with the device's noise, no token, no network), takes
``options.simulator.seed_simulator`` (seeded runs repeat) and returns the same ``PrimitiveResult`` shape
(``result[0].data.meas`` a BitArray of one row per parameter row). The device list uses only
``QiskitRuntimeService.backends()`` and ``backend.status()``, neither deprecated in 0.51.

Queue position: IBM Quantum Platform does not report a job's place in the queue. The retired Classic API
sent ``position_in_queue`` in ``GET /runtime/jobs/{id}/metrics``; qiskit-ibm-runtime 0.41.0 deprecated
``RuntimeJob.queue_position()`` / ``queue_info()`` with "The new IBM Quantum Platform does not support this
functionality" (Qiskit/qiskit-ibm-runtime PR 2296, release-notes/0.41.0.rst; PR 2289 removed the reading
code), 0.51's ``RuntimeJobV2`` has no such method (runtime_job_v2.py keeps an unused ``_queue_info``) and
the platform's ``JobMetrics`` schema for ``GET /api/v1/jobs/{id}/metrics`` lists only ``caller``,
``timestamps``, ``usage`` (``qpu_charge_time_seconds``, ``status``), ``circuits_execution_time_ns`` and
``qiskit_version``. What it does send is the device's queue length, ``length_queue`` of
``GET /api/v1/backends/{name}/status``, which 0.51 reads as ``backend.status().pending_jobs``
(api/rest/cloud_backend.py). So a queued job's report carries ``queue_position`` None and its stage names
the jobs pending on the device (:func:`device_queue`), read once each time the job enters the queue.

Tests use the runtime's local testing mode (a fake backend passed as ``local_backend``) and a stand-in
IBM Quantum Platform (tests/unit/ibm_standin.py) that answers the REST calls the real client makes.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.protocol import Emitter

FloatArray = np.ndarray[Any, np.dtype[np.float64]]

IBM_CHANNEL = "ibm_quantum_platform"
#: What the runtime needs to reach (seen in the stand-in's request log): IBM Cloud's token exchange, Global
#: Search and Global Catalog (it finds the token's instances there) and the Quantum API.
IBM_HOSTS = (
    "iam.cloud.ibm.com",
    "api.global-search-tagging.cloud.ibm.com",
    "globalcatalog.cloud.ibm.com",
    "quantum.cloud.ibm.com",
)
#: Extra QiskitRuntimeService arguments, empty in production; tests set ``url`` and ``proxies`` to reach a
#: stand-in IBM Quantum Platform (worker/tests/unit/ibm_standin.py); then the default hosts are not probed.
SERVICE_OPTIONS: dict[str, Any] = {}
REACH_TIMEOUT_SECONDS = 5.0
POLL_SECONDS = 2.0
LOCAL_POLL_SECONDS = 0.05
#: Set to 1 to run "real device" jobs in the runtime's local testing mode (the device's fake backend).
LOCAL_TESTING_ENV = "QMLSTUDIO_IBM_LOCAL_TESTING"
#: Transpiler optimisation for device and noise-model runs alike.
OPTIMIZATION_LEVEL = 1

NO_TOKEN = (
    "Running on the IBM device {device} needs an IBM Quantum token: add yours in your profile (or turn on "
    "'Use Custom IBM Token'), or choose a simulator."
)
REJECTED_TOKEN = (
    "IBM Quantum rejected the token: check it on your IBM Quantum account, or choose a simulator."
)
NO_NETWORK = "IBM Quantum could not be reached ({reason}): try again later, or choose a simulator."
NO_DEVICE = "The IBM device {device} is not available to this token: choose another device or a simulator."


class DeviceError(JobValidationError):
    """Why a device run cannot start or finish, in words for the user (the job fails with it); ``field`` is
    the body field to blame, None when IBM Quantum is unreachable or the provider job failed."""


def reach_ibm(hosts: Sequence[str] = IBM_HOSTS, timeout: float = REACH_TIMEOUT_SECONDS) -> None:
    """Fail fast, with the reason, when IBM Quantum is not reachable (the runtime would retry for long and
    then blame the token)."""
    if SERVICE_OPTIONS.get("url") and hosts is IBM_HOSTS:
        return  # the client is pointed elsewhere: its own connection errors tell (network_failure)
    for host in hosts:
        try:
            socket.create_connection((host, 443), timeout=timeout).close()
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise DeviceError(NO_NETWORK.format(reason=f"{host}: {reason}")) from None


def transpiled_summary(circuit: Any) -> dict[str, Any]:
    """Depth, two-qubit gate count and operations of a transpiled circuit, for a run's summary."""
    return {
        "transpiled_depth": int(circuit.depth()),
        "transpiled_two_qubit_gates": int(sum(1 for inst in circuit.data if inst.operation.num_qubits == 2)),
        "transpiled_operations": {str(k): int(v) for k, v in circuit.count_ops().items()},
        "optimization_level": OPTIMIZATION_LEVEL,
    }


@dataclass(frozen=True)
class DeviceTarget:
    """The body's device choice: its name and the user's token (kept out of repr and logs)."""

    name: str
    token: str | None = field(default=None, repr=False)
    local_backend: Any | None = None  # local testing mode: the fake backend to run on

    def open(self) -> Any:
        return open_device(self.name, self.token, local_backend=self.local_backend)


def device_snapshot(device: str) -> Any | None:
    """The fake backend (calibration snapshot) of ``device`` (ibm_kyiv -> FakeKyiv), None without one."""
    from qiskit_ibm_runtime import fake_provider

    name = "Fake" + device.removeprefix("ibm_").capitalize()
    return getattr(fake_provider, name)() if hasattr(fake_provider, name) else None


def local_testing_backend(device: str) -> Any | None:
    """The fake backend of ``device`` when local testing mode is switched on."""
    if os.environ.get(LOCAL_TESTING_ENV) != "1":
        return None
    snapshot = device_snapshot(device)
    if snapshot is None:
        raise DeviceError(NO_DEVICE.format(device=device), "/params/quantum_device_backend")
    return snapshot


def network_failure(exc: BaseException) -> str | None:
    """``host: reason`` when a connection failure is behind ``exc``, else None. qiskit-ibm-runtime 0.51
    reports any failure of its instance lookup as InvalidAccountError ("check that you are using a valid API
    token"), a refused or timed-out connection included (accounts/account.py list_instances); the cause
    says which."""
    import requests

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (requests.ConnectionError, requests.Timeout)):
            request = getattr(seen, "request", None)
            url = str(getattr(request, "url", "") or "")
            host = url.split("://", 1)[-1].split("/", 1)[0] if url else "IBM Quantum"
            reason: BaseException | None = seen
            while reason is not None and not (isinstance(reason, OSError) and reason.strerror):
                reason = reason.__cause__ or reason.__context__
            text = reason.strerror if isinstance(reason, OSError) and reason.strerror else type(seen).__name__
            return f"{host}: {text}"
        seen = seen.__cause__ or seen.__context__
    return None


def _refused(exc: BaseException, field: str) -> DeviceError:
    """A failed connection as unreachable IBM Quantum, anything else as a rejected token."""
    reason = network_failure(exc)
    if reason is not None:
        return DeviceError(NO_NETWORK.format(reason=reason))
    return DeviceError(REJECTED_TOKEN, field)


def runtime_service(token: str) -> Any:
    """QiskitRuntimeService for ``token`` on channel ibm_quantum_platform (plus :data:`SERVICE_OPTIONS`)."""
    from qiskit_ibm_runtime import QiskitRuntimeService

    return QiskitRuntimeService(channel=IBM_CHANNEL, token=token, **SERVICE_OPTIONS)


def open_device(
    device: str,
    token: str | None,
    *,
    local_backend: Any | None = None,
    reach: Callable[[], None] = reach_ibm,
) -> Any:
    """The backend of ``device`` for this token; ``local_backend`` (a fake backend) is local testing mode."""
    if local_backend is not None:
        return local_backend
    if not token:
        raise DeviceError(NO_TOKEN.format(device=device), "/params/actual_quantum_device_token")
    reach()
    from qiskit.providers.exceptions import QiskitBackendNotFoundError
    from qiskit_ibm_runtime.exceptions import IBMError

    try:
        service = runtime_service(token)
    except IBMError as exc:
        raise _refused(exc, "/params/actual_quantum_device_token") from None
    try:
        return service.backend(device)
    except (QiskitBackendNotFoundError, IBMError) as exc:
        reason = network_failure(exc)
        if reason is not None:
            raise DeviceError(NO_NETWORK.format(reason=reason)) from None
        raise DeviceError(NO_DEVICE.format(device=device), "/params/quantum_device_backend") from None


def cancel_job(job: Any, emit: Emitter | None) -> None:
    """Cancel a provider job, saying so; a job that already ended cannot be cancelled (logged, not raised)."""
    try:
        job.cancel()
        if emit is not None:
            emit.log(f"IBM job {job.job_id()} cancelled")
    except Exception as exc:  # the worker is stopping either way
        if emit is not None:
            emit.log(f"IBM job {job.job_id()} could not be cancelled: {exc}", level="warning")


@contextmanager
def cancel_on_stop(job: Any, emit: Emitter | None) -> Iterator[None]:
    """While ``job`` is pending, SIGTERM (the server's Stop) cancels it, then ends the process as before."""
    previous = signal.getsignal(signal.SIGTERM)

    def stop(signum: int, frame: Any) -> None:
        cancel_job(job, emit)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _status(job: Any) -> str:
    status = job.status()
    return str(getattr(status, "name", status))


#: A provider job's final states (JobStatus names; ``done()`` alone is only DONE: a failed or cancelled job
#: would be polled forever).
FINAL_STATES = frozenset({"DONE", "ERROR", "CANCELLED"})


def device_queue(backend: Any) -> int | None:
    """How many jobs wait on ``backend`` (IBM's ``length_queue``, 0.51's ``status().pending_jobs``); None when
    the backend does not say or the call fails. IBM Quantum Platform reports no per-job queue position
    (module docstring), so this is what a queued job's stage can tell."""
    try:
        value = backend.status().pending_jobs
    except Exception:  # a report is optional: the poll goes on with the state alone
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def provider_stage(state: str, pending: int | None, device: str) -> str:
    """The provider's state in words for the status timeline (``pending``: jobs waiting on the device)."""
    if state == "QUEUED":
        if pending is None:
            return "Queued at the provider"
        return f"Queued at the provider ({pending} job{'' if pending == 1 else 's'} pending on {device})"
    if state == "RUNNING":
        return f"Running on {device} at the provider"
    return f"{state.capitalize()} at the provider"


def provider_failure(job: Any, state: str, device: str) -> str:
    """A provider job that ended without a result (ERROR or CANCELLED), with IBM's reason if it has one."""
    job_id = str(job.job_id())
    if state == "CANCELLED":
        return f"IBM job {job_id} on {device} was cancelled at the provider."
    reason = ""
    getter = getattr(job, "error_message", None)
    if callable(getter):
        try:
            reason = " ".join(str(getter() or "").split())
        except Exception:  # the reason is optional
            reason = ""
    # 0.51 words it "Job <id> has failed:\n<IBM's reason>" (runtime_job_v2 API_TO_JOB_ERROR_MESSAGE).
    reason = reason.removeprefix(f"Job {job_id} has failed:").strip()
    return f"IBM job {job_id} on {device} failed at the provider" + (f": {reason}" if reason else ".")


def wait_for_job(
    job: Any, device: str, emit: Emitter | None, poll_seconds: float, backend: Any | None = None
) -> str:
    """Polls a provider job until it ends and returns its final state; each change of its state is logged
    and sent as a progress line (phase executing, with the provider's report) so the status timeline shows
    it. On entering the queue the device's queue length is read once from ``backend`` (when given)."""
    job_id = str(job.job_id())
    seen: str | None = None
    while (state := _status(job)) not in FINAL_STATES:  # one status request per poll
        if state != seen and emit is not None:
            pending = device_queue(backend) if state == "QUEUED" and backend is not None else None
            stage = provider_stage(state, pending, device)
            emit.log(f"IBM job {job_id}: {stage}")
            # IBM Quantum Platform reports no place in the queue: queue_position stays None.
            report = {"job_id": job_id, "state": state, "queue_position": None}
            emit.progress(emit.percent, stage, "executing", provider=report)
        seen = state
        time.sleep(poll_seconds)
    return state


@dataclass
class DeviceCircuit:
    """A circuit transpiled for an IBM device (or a fake one in local testing mode), run job by job."""

    device: str
    device_qubits: int
    backend: Any
    circuit: Any  # the ISA circuit (measured)
    parameters: list[Any]  # the model's parameter order (columns of ``values``)
    shots: int
    seed: int
    emit: Emitter | None
    transpile_seconds: float
    local: bool
    job_ids: list[str] = field(default_factory=list)
    circuits_run: int = 0
    run_seconds: float = 0.0

    @property
    def qubits(self) -> int:
        return int(self.circuit.num_clbits)

    def _columns(self) -> list[int]:
        position = {p: i for i, p in enumerate(self.parameters)}
        return [position[p] for p in self.circuit.parameters]

    def probabilities(self, values: Any) -> FloatArray:
        """Measured distribution (rows, 2**qubits) for every row of ``values``: one provider job."""
        from qiskit_ibm_runtime.executor_sampler import Sampler

        rows = np.atleast_2d(np.asarray(values, dtype=np.float64))
        if rows.shape[1] != len(self.parameters):
            raise ValueError(f"expected {len(self.parameters)} parameter values per row, got {rows.shape[1]}")
        started = time.monotonic()
        sampler = Sampler(mode=self.backend)
        if self.local:  # Aer behind the fake backend: seeded so local runs repeat
            sampler.options.simulator.seed_simulator = self.seed + len(self.job_ids)
        job = sampler.run([(self.circuit, rows[:, self._columns()])], shots=self.shots)
        job_id = str(job.job_id())
        self.job_ids.append(job_id)
        if self.emit is not None:
            self.emit.log(f"IBM job {job_id} submitted to {self.device} ({rows.shape[0]} circuits)")
        with cancel_on_stop(job, self.emit):
            poll = LOCAL_POLL_SECONDS if self.local else POLL_SECONDS
            state = wait_for_job(job, self.device, self.emit, poll, None if self.local else self.backend)
            if state != "DONE":
                raise DeviceError(provider_failure(job, state, self.device))
            data = job.result()[0].data.meas
        out = np.zeros((rows.shape[0], 2**self.qubits), dtype=np.float64)
        for r in range(rows.shape[0]):
            for index, count in data.get_int_counts(loc=r).items():
                out[r, int(index)] = count
        self.circuits_run += rows.shape[0]
        self.run_seconds += time.monotonic() - started
        return np.asarray(out / self.shots, dtype=np.float64)

    def summary(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "device_qubits": self.device_qubits,
            "local_testing_mode": self.local,
            **transpiled_summary(self.circuit),
            "shots": self.shots,
            "provider_job_ids": list(self.job_ids),
            "circuits_run": self.circuits_run,
            "device_seconds": round(self.run_seconds, 3),
            "transpile_seconds": round(self.transpile_seconds, 3),
        }

    def describe(self) -> str:
        where = "local testing mode (fake backend)" if self.local else "IBM Quantum"
        return f"IBM device {self.device} via {where}: ISA circuits, client-side Sampler, {self.shots} shots"


def prepare_device(
    circuit: Any,
    parameters: Sequence[Any],
    backend: Any,
    shots: int,
    seed: int,
    emit: Emitter | None = None,
    *,
    local: bool = False,
) -> DeviceCircuit:
    """Transpile ``circuit`` (measured here) for ``backend`` (ISA, seeded) for :class:`DeviceCircuit`."""
    from qiskit.transpiler import generate_preset_pass_manager

    if isinstance(shots, bool) or not isinstance(shots, int) or shots < 1:
        raise ValueError(f"shots must be a positive integer, got {shots!r}")
    started = time.monotonic()
    measured = circuit.copy()
    measured.measure_all()
    manager = generate_preset_pass_manager(
        optimization_level=OPTIMIZATION_LEVEL, backend=backend, seed_transpiler=seed
    )
    isa = manager.run(measured)
    return DeviceCircuit(
        device=str(backend.name),
        device_qubits=int(backend.num_qubits),
        backend=backend,
        circuit=isa,
        parameters=list(parameters),
        shots=shots,
        seed=seed,
        emit=emit,
        transpile_seconds=time.monotonic() - started,
        local=local,
    )


def list_devices(
    token: str | None,
    *,
    reach: Callable[[], None] = reach_ibm,
    service_factory: Callable[[str], Any] | None = None,
) -> list[dict[str, Any]]:
    """The devices this token may use, for the device picker: name, qubits, status and pending jobs.

    ``service_factory`` stands in for QiskitRuntimeService in tests."""
    if not token:
        raise DeviceError("No IBM Quantum token is stored: add yours in your profile.", "/token")
    if service_factory is None:
        reach()
        service_factory = runtime_service

    from qiskit_ibm_runtime.exceptions import IBMError

    try:
        service = service_factory(token)
        found = []
        for backend in service.backends():
            status = backend.status()
            found.append(
                {
                    "name": str(backend.name),
                    "qubits": int(backend.num_qubits),
                    "status": "online" if status.operational else "offline",
                    "status_message": str(getattr(status, "status_msg", "") or ""),
                    "pending_jobs": int(getattr(status, "pending_jobs", 0) or 0),
                }
            )
    except IBMError as exc:
        raise _refused(exc, "/token") from None
    return sorted(found, key=lambda d: (d["status"] != "online", d["pending_jobs"], d["name"]))
