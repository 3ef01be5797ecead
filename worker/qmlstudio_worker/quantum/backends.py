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
3. every evaluation runs the circuit, its final measurements replaced by Aer's ``save_probabilities`` on
   the measured qubits, with one parameter bind per row, on the method :func:`simulation_method` picks for
   its k active qubits:

   - ``density_matrix`` (k <= ``MAX_DENSITY_MATRIX_QUBITS``): the exact noisy distribution,
     16 * 4**k bytes and time growing as 4**k per gate;
   - ``statevector`` above: quantum trajectories, one sampled noise realisation per Aer shot in
     16 * 2**k bytes; the distribution is the mean of ``TRAJECTORIES`` realisations (fewer when the run
     takes fewer shots), each contributing its whole final distribution (no measurement noise in it).

   Each qubit's readout error (its 2 x 2 assignment matrix) is then applied to the distribution and
   ``shots`` shots are drawn from it (multinomial, seeded per call so that runs repeat). For the density
   matrix this is exactly what Aer's sampled measurement with readout errors does (same distribution of
   counts) and it is 4x faster (Aer samples and applies the readout error shot by shot: 35 ms -> 8 ms per
   4-qubit kernel circuit of the fraud QSVC, 1024 shots); for trajectories it is an estimate of the
   noisy distribution from ``TRAJECTORIES`` realisations, said in :meth:`NoisyCircuit.describe`.

Why not a trajectory per shot: Aer's noisy statevector costs one full simulation per shot, including the
Kraus sampling of every gate's thermal relaxation. Measured on this machine (2 cores, fake_kyiv, 1024 shots,
seconds per evaluation of one parameter row, while other jobs shared the cores; ``CROSSOVER_TABLE``):
QAOA circuits of k qubits (depth 35 to 400 after transpiling) ran 0.016/0.056 (k=2), 0.012/0.051 (4),
0.044/0.15 (6), 0.077/0.84 (8), 4.1/28.6 (10) s on the density matrix / per-shot trajectories; the
14-qubit vehicle-routing QAOA (514 ECR) takes about 0.15 to 0.25 s per trajectory, 4 minutes for 1024
shots, and its density matrix (15 active qubits after routing: 17 GB) is out of reach. With
``TRAJECTORIES`` = 64 the trajectory cost is 1/16 of that, which puts the crossover at 10 qubits
(``simulation_method``). Aer's "automatic" method is not used: at 10 qubits it took 26.5 s (it chose
per-shot trajectories) where the density matrix took 4.1 s. The price of 64 realisations: on a 4-qubit
RealAmplitudes circuit under fake_kyiv their mean distribution (before any shots) was 0.013 to 0.032 in
total variation from the exact density matrix, about what 1,024 shots alone add (0.031 to 0.035), while the
noise itself moved it 0.03 to 0.06 from the ideal one; a run that needs more passes ``trajectories`` (the
test compares one realisation per shot with the density matrix).

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
#: Rows per Aer call: bounds the memory of one result (a distribution per row).
ROWS_PER_CALL = 512
#: Active qubits up to which the density matrix runs; trajectories above (see the module docstring).
MAX_DENSITY_MATRIX_QUBITS = 10
#: Noise realisations (statevector trajectories) averaged per evaluation above that.
TRAJECTORIES = 64
#: Seconds per evaluation (one row, 1024 shots, fake_kyiv) measured for QAOA circuits of k qubits:
#: (k, transpiled depth, density matrix, per-shot trajectories); measured with the other jobs on the cores.
CROSSOVER_TABLE: tuple[tuple[int, int, float, float], ...] = (
    (2, 35, 0.016, 0.056),
    (4, 94, 0.012, 0.051),
    (6, 208, 0.044, 0.152),
    (8, 353, 0.077, 0.836),
    (10, 399, 4.147, 28.6),
)


def simulation_method(qubits: int) -> str:
    """Aer's method for a noisy circuit on ``qubits`` active qubits: the exact density matrix while it is
    the faster one (measured, ``CROSSOVER_TABLE``), statevector trajectories above (memory 16 * 2**k)."""
    return "density_matrix" if qubits <= MAX_DENSITY_MATRIX_QUBITS else "statevector"


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


class _TargetOn:
    """A device target seen through the instructions on ``physical`` qubits only: what Aer's
    ``basic_device_gate_errors`` reads (``items``, ``operation_from_name``, ``qubit_properties``), so it
    builds the errors of the circuit's qubits instead of all of the device's (measured: 10 s -> 0.1 s for
    fake_kyiv's 127 qubits with other jobs on the cores). The errors are the same objects
    (test_quantum_backends)."""

    def __init__(self, target: Any, physical: Sequence[int]) -> None:
        self._target = target
        self._keep = set(physical)
        self.qubit_properties = target.qubit_properties

    def operation_from_name(self, name: str) -> Any:
        return self._target.operation_from_name(name)

    def items(self) -> list[tuple[str, Any]]:
        return [
            (
                name,
                None
                if properties is None
                else {q: v for q, v in properties.items() if q is not None and set(q) <= self._keep},
            )
            for name, properties in self._target.items()
        ]


def _device_noise(backend: Any, physical: Sequence[int]) -> Any:
    """The device's gate (depolarizing + thermal relaxation) and readout errors on ``physical`` qubits,
    renumbered like :func:`_compact`."""
    from qiskit_aer.noise import NoiseModel
    from qiskit_aer.noise.device.models import basic_device_gate_errors, basic_device_readout_errors

    index = {q: i for i, q in enumerate(physical)}
    target = backend.target
    noise = NoiseModel(basis_gates=[name for name in target.operation_names if name != "measure"])
    for gate, qargs, error in basic_device_gate_errors(target=_TargetOn(target, physical)):
        if all(q in index for q in qargs):
            noise.add_quantum_error(error, gate, [index[q] for q in qargs])
    for qargs, error in basic_device_readout_errors(target=target):
        if all(q in index for q in qargs):
            noise.add_readout_error(error, [index[q] for q in qargs])
    return noise


def _device_readout(backend: Any, physical: Sequence[int]) -> list[FloatArray]:
    """Each physical qubit's readout assignment matrix (rows: prepared 0/1, columns: read 0/1), in the
    order of ``physical``; the identity where the snapshot has none."""
    from qiskit_aer.noise.device.models import basic_device_readout_errors

    found = {
        qargs[0]: np.asarray(error.probabilities, dtype=np.float64)
        for qargs, error in basic_device_readout_errors(target=backend.target)
        if len(qargs) == 1
    }
    return [found.get(q, np.eye(2)) for q in physical]


def _probability_program(measured: Any) -> tuple[Any, list[int]]:
    """``measured`` without its measurements, saving the probabilities of the measured qubits in clbit
    order (index bit c = clbit c), and the compact qubit read into each clbit."""
    qubit_of: dict[int, int] = {}
    for inst in measured.data:
        if inst.operation.name == "measure":
            qubit_of[measured.find_bit(inst.clbits[0]).index] = measured.find_bit(inst.qubits[0]).index
    if sorted(qubit_of) != list(range(measured.num_clbits)):
        raise ValueError("every classical bit of the circuit must be measured once")
    order = [qubit_of[c] for c in range(measured.num_clbits)]
    program = measured.remove_final_measurements(inplace=False)  # keeps every qubit
    if any(inst.operation.name == "measure" for inst in program.data):
        raise ValueError("the circuit measures before its end")
    program.save_probabilities(qubits=[program.qubits[q] for q in order])
    return program, order


def apply_readout(distribution: FloatArray, matrices: Sequence[FloatArray]) -> FloatArray:
    """The distribution (rows, 2**n; index bit c = bit c) as read through each bit's readout matrix."""
    out = np.array(distribution, dtype=np.float64)
    rows = out.shape[0]
    for c, matrix in enumerate(matrices):
        view = out.reshape(rows, -1, 2, 2**c)
        zero, one = view[:, :, 0, :].copy(), view[:, :, 1, :].copy()
        view[:, :, 0, :] = matrix[0, 0] * zero + matrix[1, 0] * one
        view[:, :, 1, :] = matrix[0, 1] * zero + matrix[1, 1] * one
    return out


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
    method: str = "density_matrix"
    program: Any = None  # ``circuit`` saving its probabilities instead of measuring
    readout: list[FloatArray] = field(default_factory=list)  # per classical bit
    trajectory_budget: int = TRAJECTORIES
    calls: int = 0
    circuits_run: int = 0
    run_seconds: float = field(default=0.0)

    @property
    def qubits(self) -> int:
        return int(self.circuit.num_clbits)

    @property
    def active_qubits(self) -> int:
        return int(self.circuit.num_qubits)

    @property
    def trajectories(self) -> int | None:
        """Noise realisations per evaluation (statevector method), None for the exact density matrix."""
        return min(self.shots, self.trajectory_budget) if self.method == "statevector" else None

    def distributions(self, values: Any) -> FloatArray:
        """The noisy distribution before the shots (rows, 2**qubits), readout error included: exact on the
        density matrix, the mean of the trajectories on the statevector."""
        rows = np.atleast_2d(np.asarray(values, dtype=np.float64))
        if rows.shape[1] != len(self.parameters):
            raise ValueError(f"expected {len(self.parameters)} parameter values per row, got {rows.shape[1]}")
        out = np.zeros((rows.shape[0], 2**self.qubits), dtype=np.float64)
        used = set(self.program.parameters)
        for start in range(0, rows.shape[0], ROWS_PER_CALL):
            chunk = rows[start : start + ROWS_PER_CALL]
            binds = {p: chunk[:, i].tolist() for i, p in enumerate(self.parameters) if p in used}
            self.calls += 1
            result = self.simulator.run(
                self.program,
                parameter_binds=[binds] if binds else None,
                shots=self.trajectories or 1,
                seed_simulator=self.seed + self.calls,
            ).result()
            for r in range(chunk.shape[0]):
                out[start + r] = np.asarray(result.data(r if binds else 0)["probabilities"], dtype=np.float64)
            self.circuits_run += chunk.shape[0]
        out = np.clip(out, 0.0, None)
        out /= out.sum(axis=1, keepdims=True)
        return apply_readout(out, self.readout)

    def probabilities(self, values: Any) -> FloatArray:
        """Measured distribution (rows, 2**qubits) for every row of ``values`` (rows, len(parameters)):
        ``shots`` shots drawn from :meth:`distributions`, seeded per call."""
        started = time.monotonic()
        exact = self.distributions(values)
        rng = np.random.default_rng([self.seed, self.calls])
        counts = np.stack([rng.multinomial(self.shots, row / row.sum()) for row in exact])
        self.run_seconds += time.monotonic() - started
        return np.asarray(counts / self.shots, dtype=np.float64)

    def summary(self) -> dict[str, Any]:
        return {
            "noise_model": self.noise_model,
            "device": self.device,
            "device_qubits": self.device_qubits,
            "physical_qubits": self.physical_qubits,
            **transpiled_summary(self.circuit),
            "shots": self.shots,
            "simulation_method": self.method,
            "trajectories": self.trajectories,
            "transpile_seconds": round(self.transpile_seconds, 3),
            "circuits_run": self.circuits_run,
            "simulator_calls": self.calls,
            "simulation_seconds": round(self.run_seconds, 3),
        }

    def describe(self) -> str:
        how = (
            "Aer density matrix"
            if self.method == "density_matrix"
            else f"Aer statevector trajectories: the mean of {self.trajectories} noise realisations"
        )
        return (
            f"noise model {self.noise_model} ({self.device}, qubits {self.physical_qubits}): circuits "
            f"transpiled for the device, simulated with its noise ({how}), {self.shots} shots"
        )


def prepare_noisy(
    circuit: Any,
    parameters: Sequence[Any],
    noise_model: str,
    shots: int,
    seed: int,
    method: str | None = None,
    trajectories: int = TRAJECTORIES,
) -> NoisyCircuit:
    """Transpile ``circuit`` (measured here) for the noise model's device and set up its noisy simulator.

    ``parameters`` fixes the column order of the values later passed to ``probabilities``; ``method``
    (``density_matrix`` or ``statevector``) overrides :func:`simulation_method` (tests compare them);
    ``trajectories`` bounds the noise realisations per evaluation of the statevector method."""
    from qiskit.transpiler import generate_preset_pass_manager
    from qiskit_aer import AerSimulator

    if noise_model_name(noise_model) is None:
        raise ValueError("prepare_noisy needs a noise model")
    if isinstance(shots, bool) or not isinstance(shots, int) or shots < 1:
        raise ValueError(f"shots must be a positive integer, got {shots!r}")
    if method not in (None, "density_matrix", "statevector"):
        raise ValueError(f"method must be density_matrix or statevector, got {method!r}")
    started = time.monotonic()
    backend = fake_backend(noise_model)
    measured = circuit.copy()
    measured.measure_all()
    manager = generate_preset_pass_manager(
        optimization_level=OPTIMIZATION_LEVEL, backend=backend, seed_transpiler=seed
    )
    compact, physical = _compact(manager.run(measured))
    program, order = _probability_program(compact)
    chosen = method or simulation_method(compact.num_qubits)
    readout = _device_readout(backend, physical)
    # the rows of one call are Aer experiments: a small density matrix runs one per core (Aer parallelizes
    # the state itself only from 14 qubits, the trajectories' shots on its own)
    options = {"max_parallel_experiments": 0} if chosen == "density_matrix" else {}
    simulator = AerSimulator(noise_model=_device_noise(backend, physical), method=chosen, **options)
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
        method=chosen,
        program=program,
        readout=[readout[q] for q in order],
        trajectory_budget=trajectories,
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
