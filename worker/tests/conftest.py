"""Shared fixtures: the worker's protocol schema, the contract fixtures in tests/contracts, a helper to
validate emitted lines and one warm worker (``serve``) for the tests that run a command in its own process."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from jsonschema import Draft7Validator

WORKER_DIR = Path(__file__).resolve().parents[1]
REPO_ROOT = WORKER_DIR.parent
CONTRACTS_DIR = REPO_ROOT / "tests" / "contracts"
# The production schema the server validates every line against; the fixtures stay with the twin tests.
PROTOCOL_SCHEMA_PATH = WORKER_DIR / "qmlstudio_worker" / "schemas" / "worker-protocol.schema.json"
PROTOCOL_FIXTURES_PATH = CONTRACTS_DIR / "worker-protocol.fixtures.json"


# qiskit-ibm-runtime names its caller in a request header by walking inspect.stack() on every HTTP request
# (to the IBM stand-in here): ~0.3 CPU-s each under pytest's deep stack and many loaded modules, 42 requests
# in a run. Opting out of that usage header changes nothing the tests look at (the stand-in ignores it).
os.environ.setdefault("USAGE_DATA_OPT_OUT", "True")

# The environment at session start: the warm worker gets this, not what a test has monkeypatched when it
# happens to be the first to ask for the worker.
_SESSION_ENV = dict(os.environ)


def dataset_entry(path: Path) -> dict[str, Any]:
    """The envelope extension's "dataset" entry, as the server sends it for a CSV file."""
    data = path.read_bytes()
    return {
        "path": str(path),
        "sha256": hashlib.sha256(data).hexdigest(),
        "row_count": data.count(b"\n") - 1,
        "columns": data.split(b"\n", 1)[0].decode().strip().split(","),
        "label": path.name,
        "synthetic": "synthetic" in path.name,
    }


def fraud_blobs(n: int, fraud_share: float = 0.25, seed: int = 0) -> pd.DataFrame:
    """Two well separated clusters in 6 features (fraud the smaller one, "Class" 1), V4-V6 pure noise."""
    rng = np.random.default_rng(seed)
    fraud = rng.random(n) < fraud_share
    centre = np.where(fraud[:, None], 1.5, -1.5)
    features = centre * np.array([1, 1, 1, 0, 0, 0]) + rng.normal(0, 0.6, (n, 6))
    frame = pd.DataFrame(features, columns=[f"V{i}" for i in range(1, 7)])
    frame["Class"] = fraud.astype(int)
    return frame


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def protocol_schema() -> dict[str, Any]:
    schema = load_json(PROTOCOL_SCHEMA_PATH)
    Draft7Validator.check_schema(schema)
    return schema


@pytest.fixture(scope="session")
def protocol_validator(protocol_schema: dict[str, Any]) -> Draft7Validator:
    return Draft7Validator(protocol_schema)


@pytest.fixture(scope="session")
def parse_protocol_lines(protocol_validator: Draft7Validator) -> Callable[[str], list[dict[str, Any]]]:
    """Split stdout text into protocol lines, asserting each is one JSON object valid against the schema."""

    def parse(text: str) -> list[dict[str, Any]]:
        assert text.endswith("\n"), f"stdout must end with a newline: {text[-200:]!r}"
        lines = []
        for raw in text.splitlines():
            line = json.loads(raw)
            errors = [e.message for e in protocol_validator.iter_errors(line)]
            assert not errors, f"line {raw!r} breaks the protocol schema: {errors}"
            lines.append(line)
        return lines

    return parse


@pytest.fixture
def one_timed_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resource estimates time one call of the action, without the warm-up call or the median of several: for
    tests of what an estimate counts and says, not of how it times (a 14-qubit noisy call takes seconds).
    test_estimate_matches_run and test_estimate_by_family time as the product does."""
    import time

    from qmlstudio_worker.jobs import resource_estimate

    def once(action: Callable[[], Any]) -> float:  # no warm-up call either: the one call's seconds
        started = time.perf_counter()
        action()
        return time.perf_counter() - started

    monkeypatch.setattr(resource_estimate, "_timed", once)


@pytest.fixture(autouse=True, scope="session")
def _one_aer_simulator_per_fake_device() -> Any:
    """qiskit-ibm-runtime's local testing mode (and the IBM stand-in's executor) build
    ``AerSimulator.from_backend(fake device)`` for every provider job: the 127-qubit device's noise model,
    ~4.4 s of CPU each time. The snapshot is the same file every time and Aer's sampler passes its seed per
    run without changing the simulator, so tests build it once per device and reuse it. The worker itself
    never calls ``from_backend`` (its noise models are built on the circuit's qubits in quantum/backends.py),
    so only the runtime's local simulation of a device is shared."""
    from qiskit_aer import AerSimulator

    original = AerSimulator.__dict__["from_backend"]
    built: dict[str, Any] = {}

    def from_backend(cls: type, backend: Any, **options: Any) -> Any:
        name = getattr(backend, "name", None)
        if options or cls is not AerSimulator or not isinstance(name, str) or not name.startswith("fake_"):
            return original.__func__(cls, backend, **options)
        if name not in built:
            built[name] = original.__func__(cls, backend)
        return built[name]

    AerSimulator.from_backend = classmethod(from_backend)  # type: ignore[method-assign,assignment]
    yield
    AerSimulator.from_backend = original  # type: ignore[method-assign]


@pytest.fixture(autouse=True, scope="session")
def _one_target_per_fake_device() -> Any:
    """Each ``FakeKyiv()`` (``fake_backend`` in quantum/backends.py, local testing mode in devices.py)
    parses its calibration snapshot and converts it to a transpiler Target on first use: ~0.6 CPU-s for a
    127-qubit device, and the tests make ~70 such instances. The snapshot file is the same each time, so
    tests build the Target once per device class and give it to every instance. Nothing the worker or the
    libraries run here changes a Target in place (Aer's noise model deep-copies it before editing gate
    lengths)."""
    from qiskit_ibm_runtime.fake_provider.fake_backend import FakeBackendV2

    original = FakeBackendV2.__dict__["target"]
    built: dict[type, Any] = {}

    def target(self: Any) -> Any:
        if self._target is None:
            cls = type(self)
            if cls not in built:
                built[cls] = original.fget(self)
            self._target = built[cls]
        return self._target

    FakeBackendV2.target = property(target)  # type: ignore[method-assign,assignment]
    yield
    FakeBackendV2.target = original  # type: ignore[method-assign]


@dataclass
class CommandResult:
    """What ``python -m qmlstudio_worker <command>`` with the request on stdin gave: exit code (minus the
    signal number when a signal ended it, as subprocess reports it), stdout and stderr."""

    returncode: int
    stdout: str
    stderr: str


class WarmWorker:
    """One ``python -m qmlstudio_worker serve`` parent for the session: its imports (~5 CPU-s) are paid once,
    and each command runs in a child forked for it, in a process of its own. The child runs ``cli.main`` with
    the request as stdin and its stdout on the socket: what the cold ``python -m qmlstudio_worker <command>``
    prints (the serve protocol itself is tested in integration/test_serve.py; the cold command line, stdout
    claim and signal handling in integration/test_cli.py)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.socket_path = workdir / "worker.sock"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "qmlstudio_worker", "serve", "--socket", str(self.socket_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=workdir,
            env=_SESSION_ENV,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # blocks until the imports are done (or the process ends)
        assert line, "serve ended before it was ready"
        self.ready: dict[str, Any] = json.loads(line)
        self._calls = 0

    def connect(self, request: dict[str, Any], timeout: float = 120) -> socket.socket:
        """A connection that has sent ``request`` (one serve request line)."""
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(timeout)
        conn.connect(str(self.socket_path))
        conn.sendall((json.dumps(request) + "\n").encode("utf-8"))
        return conn

    def command(self, command: str, request: dict[str, Any], args: tuple[str, ...] = ()) -> CommandResult:
        """``python -m qmlstudio_worker <command> <args>`` with ``json.dumps(request)`` on stdin, run in a
        child of the warm parent."""
        self._calls += 1
        stderr_path = self.workdir / f"stderr-{self._calls}.log"
        conn = self.connect(
            {"command": command, "args": list(args), "input": request, "stderr_path": str(stderr_path)}
        )
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
        conn.close()
        head, _, rest = data.partition(b"\n")
        assert "pid" in json.loads(head)["qmlstudio_serve"], data[:500]
        # The child's stdout, then a newline and the parent's exit line (see serve.py).
        body, _, exit_line = rest.removesuffix(b"\n").rpartition(b"\n")
        exit_info = json.loads(exit_line)["qmlstudio_serve"]["exit"]
        signal_name = exit_info["signal"]
        code = exit_info["code"] if signal_name is None else -signal.Signals[signal_name].value
        stderr = stderr_path.read_text(encoding="utf-8") if stderr_path.exists() else ""
        return CommandResult(code, body.decode("utf-8"), stderr)

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.fixture(scope="session")
def _warm_workers() -> Iterator[list[WarmWorker]]:
    started: list[WarmWorker] = []
    yield started
    for worker in started:
        worker.stop()


@pytest.fixture
def warm_worker(_warm_workers: list[WarmWorker], tmp_path_factory: pytest.TempPathFactory) -> WarmWorker:
    """The session's warm worker, started by the first test that asks for it (again only if a test has ended
    it: test_serve's last test, which runs last in the session for that reason)."""
    if not _warm_workers or not _warm_workers[-1].running():
        _warm_workers.append(WarmWorker(tmp_path_factory.mktemp("warm-worker")))
    return _warm_workers[-1]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "ends_warm_worker: ends the session's warm worker; runs after every other test"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("ends_warm_worker") is not None)  # stable sort
