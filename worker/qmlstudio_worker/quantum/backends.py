"""Noisy simulation: a quantum model's circuits run under the noise of an IBM device snapshot.

The schema's noise models (``schemas/defs.json`` ``noiseModel``, carried in the job extension as
``quantum_noise_model``) name fake backends of ``qiskit_ibm_runtime.fake_provider``: calibration snapshots
of IBM devices (coupling map, basis gates, gate errors and durations, T1/T2, readout errors).

A noisy run cannot reuse the exact torch statevector of :mod:`.statevector`, so :func:`prepare_noisy`
builds what really runs:

1. the model's parameterized circuit, measured, is transpiled for the device (Qiskit's preset pass manager,
   optimization level 1, seeded): an ISA circuit on the device's basis gates and physical qubits;
2. the physical qubits the circuit touches are renumbered 0..k-1 and the device's noise (Aer's
   ``basic_device_gate_errors`` and ``basic_device_readout_errors``, what ``NoiseModel.from_backend``
   is made of) is kept for those qubits only: the same noise on the same qubits, without Aer carrying the
   whole device through every experiment (measured: 3 s -> 1 s for 200 rows of a 4-qubit VQC);
3. every evaluation runs the circuit on Aer's density-matrix simulator with one parameter bind per row,
   ``shots`` shots each (a noisy run is always sampled), seeded per call so that runs repeat.

:class:`NoisyCircuit.probabilities` returns the measured distribution per row in Qiskit's order (index
bit q = qubit q), the same layout as :func:`.statevector.probabilities`, so a model swaps one for the other.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from qmlstudio_worker.protocol import Emitter
    from qmlstudio_worker.quantum.devices import DeviceTarget

import numpy as np

from qmlstudio_worker.quantum.devices import OPTIMIZATION_LEVEL, transpiled_summary

FloatArray = np.ndarray[Any, np.dtype[np.float64]]

#: The schema's noise-model names and the fake backends they load.
NOISE_MODELS: dict[str, str] = {
    "fake_brisbane": "FakeBrisbane",
    "fake_kyiv": "FakeKyiv",
    "fake_sherbrooke": "FakeSherbrooke",
    "fake_torino": "FakeTorino",
}
#: The form's "no noise" choice (and an extension without the key).
NO_NOISE: tuple[str | None, ...] = (None, "None")
#: Shots per circuit when a noise model is chosen on a simulator the body marks exact.
DEFAULT_NOISY_SHOTS = 1024
#: Rows per Aer call: bounds the memory of one result (counts of every row).
ROWS_PER_CALL = 512


def noise_model_name(value: Any) -> str | None:
    """The extension's ``quantum_noise_model`` checked: None for no noise, else one of NOISE_MODELS."""
    if value in NO_NOISE:
        return None
    if not isinstance(value, str) or value not in NOISE_MODELS:
        known = ", ".join(NOISE_MODELS)
        raise ValueError(f"Unknown noise model {value!r}: choose None or one of {known}.")
    return value


def fake_backend(name: str) -> Any:
    """The fake backend (device snapshot) a noise model names."""
    from qiskit_ibm_runtime import fake_provider

    return getattr(fake_provider, NOISE_MODELS[name])()


def _compact(transpiled: Any) -> tuple[Any, list[int]]:
    """The transpiled circuit on its active physical qubits only, renumbered 0..k-1 in ascending order."""
    from qiskit import QuantumCircuit

    used = sorted({transpiled.find_bit(q).index for inst in transpiled.data for q in inst.qubits})
    index = {physical: i for i, physical in enumerate(used)}
    compact = QuantumCircuit(len(used), transpiled.num_clbits, name=transpiled.name)
    for inst in transpiled.data:
        if inst.operation.name == "barrier":
            continue
        qubits = [compact.qubits[index[transpiled.find_bit(q).index]] for q in inst.qubits]
        clbits = [compact.clbits[transpiled.find_bit(c).index] for c in inst.clbits]
        compact.append(inst.operation, qubits, clbits)
    return compact, used


def _device_noise(backend: Any, physical: Sequence[int]) -> Any:
    """The device's gate (depolarizing + thermal relaxation) and readout errors on ``physical`` qubits,
    renumbered like :func:`_compact`."""
    from qiskit_aer.noise import NoiseModel
    from qiskit_aer.noise.device.models import basic_device_gate_errors, basic_device_readout_errors

    index = {q: i for i, q in enumerate(physical)}
    target = backend.target
    noise = NoiseModel(basis_gates=[name for name in target.operation_names if name != "measure"])
    for gate, qargs, error in basic_device_gate_errors(target=target):
        if all(q in index for q in qargs):
            noise.add_quantum_error(error, gate, [index[q] for q in qargs])
    for qargs, error in basic_device_readout_errors(target=target):
        if all(q in index for q in qargs):
            noise.add_readout_error(error, [index[q] for q in qargs])
    return noise


@dataclass
class NoisyCircuit:
    """A circuit transpiled for a device, with that device's noise, ready to run for many parameter rows."""

    noise_model: str
    device: str
    device_qubits: int
    physical_qubits: list[int]
    shots: int
    seed: int
    circuit: Any  # the compact ISA circuit (measured)
    parameters: list[Any]  # the model's parameter order (columns of ``values``)
    simulator: Any
    transpile_seconds: float
    calls: int = 0
    circuits_run: int = 0
    run_seconds: float = field(default=0.0)

    @property
    def qubits(self) -> int:
        return int(self.circuit.num_clbits)

    def probabilities(self, values: Any) -> FloatArray:
        """Measured distribution (rows, 2**qubits) for every row of ``values`` (rows, len(parameters))."""
        rows = np.atleast_2d(np.asarray(values, dtype=np.float64))
        if rows.shape[1] != len(self.parameters):
            raise ValueError(f"expected {len(self.parameters)} parameter values per row, got {rows.shape[1]}")
        out = np.zeros((rows.shape[0], 2**self.qubits), dtype=np.float64)
        started = time.monotonic()
        for start in range(0, rows.shape[0], ROWS_PER_CALL):
            chunk = rows[start : start + ROWS_PER_CALL]
            binds = {p: chunk[:, i].tolist() for i, p in enumerate(self.parameters) if p in self._used}
            self.calls += 1
            result = self.simulator.run(
                self.circuit,
                parameter_binds=[binds] if binds else None,
                shots=self.shots,
                seed_simulator=self.seed + self.calls,
            ).result()
            for r in range(chunk.shape[0]):
                counts = result.get_counts(r if binds else 0)
                for key, count in counts.items():
                    out[start + r, int(key.replace(" ", ""), 2)] = count
            self.circuits_run += chunk.shape[0]
        self.run_seconds += time.monotonic() - started
        return np.asarray(out / self.shots, dtype=np.float64)

    @property
    def _used(self) -> set[Any]:
        return set(self.circuit.parameters)

    def summary(self) -> dict[str, Any]:
        return {
            "noise_model": self.noise_model,
            "device": self.device,
            "device_qubits": self.device_qubits,
            "physical_qubits": self.physical_qubits,
            **transpiled_summary(self.circuit),
            "shots": self.shots,
            "transpile_seconds": round(self.transpile_seconds, 3),
            "circuits_run": self.circuits_run,
            "simulation_seconds": round(self.run_seconds, 3),
        }

    def describe(self) -> str:
        return (
            f"noise model {self.noise_model} ({self.device}, qubits {self.physical_qubits}): circuits "
            f"transpiled for the device, simulated with its noise (Aer density matrix), {self.shots} shots"
        )


def prepare_noisy(
    circuit: Any, parameters: Sequence[Any], noise_model: str, shots: int, seed: int
) -> NoisyCircuit:
    """Transpile ``circuit`` (measured here) for the noise model's device and set up its noisy simulator.

    ``parameters`` fixes the column order of the values later passed to ``probabilities``."""
    from qiskit.transpiler import generate_preset_pass_manager
    from qiskit_aer import AerSimulator

    if noise_model_name(noise_model) is None:
        raise ValueError("prepare_noisy needs a noise model")
    if isinstance(shots, bool) or not isinstance(shots, int) or shots < 1:
        raise ValueError(f"shots must be a positive integer, got {shots!r}")
    started = time.monotonic()
    backend = fake_backend(noise_model)
    measured = circuit.copy()
    measured.measure_all()
    manager = generate_preset_pass_manager(
        optimization_level=OPTIMIZATION_LEVEL, backend=backend, seed_transpiler=seed
    )
    compact, physical = _compact(manager.run(measured))
    simulator = AerSimulator(noise_model=_device_noise(backend, physical), method="density_matrix")
    return NoisyCircuit(
        noise_model=noise_model,
        device=str(backend.name),
        device_qubits=int(backend.num_qubits),
        physical_qubits=physical,
        shots=shots,
        seed=seed,
        circuit=compact,
        parameters=list(parameters),
        simulator=simulator,
        transpile_seconds=time.monotonic() - started,
    )


class CircuitRunner(Protocol):
    """What a model needs from where its circuits run: a noise model here, a device in :mod:`.devices`."""

    def probabilities(self, values: Any) -> FloatArray: ...

    def summary(self) -> dict[str, Any]: ...

    def describe(self) -> str: ...


def prepare_runner(
    circuit: Any,
    parameters: Sequence[Any],
    *,
    shots: int | None,
    seed: int,
    noise_model: str | None = None,
    device: DeviceTarget | None = None,
    emit: Emitter | None = None,
    percent: float = 5,
) -> CircuitRunner | None:
    """The one place a quantum model's execution is chosen: None for the exact (or shot-sampled) torch
    statevector, a :class:`NoisyCircuit` for a noise model, a device run for an IBM device. ``percent``
    is the job's progress while connecting and transpiling."""
    if device is None and noise_model is None:
        return None
    run_shots = shots if shots is not None else DEFAULT_NOISY_SHOTS
    if device is not None:
        from qmlstudio_worker.quantum.devices import prepare_device

        if emit is not None:
            emit.progress(percent, f"connecting to {device.name}", "preparing")
        backend = device.open()
        if emit is not None:
            emit.progress(percent, f"transpiling for {device.name}", "preparing")
        return prepare_device(
            circuit, parameters, backend, run_shots, seed, emit, local=device.local_backend is not None
        )
    assert noise_model is not None
    if emit is not None:
        emit.progress(percent, f"transpiling for {noise_model}", "preparing")
    return prepare_noisy(circuit, parameters, noise_model, run_shots, seed)
