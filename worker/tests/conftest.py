"""Shared fixtures: the worker's protocol schema, the contract fixtures in tests/contracts and a helper to
validate emitted lines."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
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
