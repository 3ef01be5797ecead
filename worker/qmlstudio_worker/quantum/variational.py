"""The variational optimise-and-read-out loop for a diagonal cost: SamplingVQE or QAOA on a tabulated QUBO.

A problem gives the energy of every basis state (qubit q = bit q of the index, Qiskit's little-endian
order), scaled to about 1; :func:`optimise_and_read_out` then

- builds the circuit: for **VQE** the chosen ansatz (``reps`` repetitions) on |0...0>, initial point uniform
  in [-pi, pi] from the seed; for **QAOA** |+>^n, then ``reps`` times exp(-i gamma H) (a diagonal phase)
  and the X mixer RX(2 beta) on every qubit, Qiskit's ``qaoa_ansatz`` of the problem's Ising operator with
  parameters (beta_1..p, gamma_1..p), initial point a linear ramp;
- minimizes the energy of the measured bitstrings (their CVaR with ``alpha`` < 1, as Qiskit's SamplingVQE
  ``aggregation``; the mean with alpha 1): exact from the statevector's probabilities when ``shots`` is
  None, else sampled with that many shots from the exact distribution by a seeded generator. Under a noise
  model or on a device (:func:`.backends.prepare_runner`) every evaluation runs the transpiled Qiskit circuit
  there (1024 shots unless given); ADAM under a noise model follows the gradient of the exact noisy channel
  (:mod:`.noisy_density`), ADAM on a real device is refused (``optimizers.ADAM_ON_A_DEVICE``);
- measures the trained circuit ``readout_shots`` times (the run's shots, 1024 when it is exact).

What the measurements mean (a selection, routes) is the problem's to read from :class:`VariationalRun`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum.backends import DEFAULT_NOISY_SHOTS, prepare_runner
from qmlstudio_worker.quantum.devices import DeviceTarget
from qmlstudio_worker.quantum.optimizers import ADAM_ON_A_DEVICE, OptimizerResult, minimize
from qmlstudio_worker.quantum.statevector import Ansatz, circuit_summary, probabilities, zero_state

MAX_QUBITS = 16  # the energies of all 2**n basis states are tabulated
READOUT_SHOTS = 1024  # measurements of the final circuit when the run itself is exact
FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def basis_bits(n: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    """(2**n, n): bit q of every basis index (qubit q)."""
    return (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1


def bitstring(index: int, n: int) -> str:
    """The basis state in qubit order (character q is qubit q)."""
    return "".join(str((index >> i) & 1) for i in range(n))


def qaoa_state(energy: Any, betas: Any, gammas: Any, n: int) -> Any:
    """The QAOA state (complex128, shape (1, 2**n)) for the diagonal ``energy`` (torch)."""
    import torch

    from qmlstudio_worker.quantum.statevector import rx

    state = torch.full((1, 2**n), 2 ** (-n / 2), dtype=torch.complex128)
    for beta, gamma in zip(betas, gammas, strict=True):
        state = state * torch.polar(torch.ones_like(energy), -gamma * energy)
        for q in range(n):
            state = rx(state, n, q, 2 * beta)
    return state


def cvar(probs: Any, energy: Any, alpha: float) -> Any:
    """Conditional value at risk (torch): the mean energy of the lowest-energy ``alpha`` share of the
    probability mass, as Qiskit's SamplingVQE ``aggregation=alpha``; alpha 1 is the plain mean."""
    import torch

    if alpha >= 1.0:
        return probs @ energy
    order = torch.argsort(energy, stable=True)
    ranked = probs[order]
    before = torch.cumsum(ranked, 0) - ranked
    taken = torch.minimum(ranked, torch.clamp(alpha - before, min=0.0))
    return (taken * energy[order]).sum() / alpha


@dataclass(frozen=True)
class VariationalSetup:
    """What to optimise and how: ``kind`` VQE or QAOA; ``ising`` builds QAOA's Qiskit operator."""

    kind: str
    reps: int
    optimizer: str
    maxiter: int
    seed: int
    shots: int | None = None
    ansatz: str = "RealAmplitudes"
    alpha: float = 1.0
    noise_model: str | None = None
    device: DeviceTarget | None = None
    ising: Callable[[], Any] | None = None

    def check(self, qubits: int) -> None:
        if self.kind not in ("QAOA", "VQE"):
            raise ValueError(f"unknown quantum optimizer {self.kind!r}; expected QAOA or VQE")
        if not 0.0 < self.alpha <= 1.0:
            raise ValueError(f"aggregation (CVaR alpha) must be in (0, 1], got {self.alpha!r}")
        if isinstance(self.reps, bool) or not isinstance(self.reps, int) or self.reps < 1:
            raise ValueError(f"circuit repetitions must be a positive integer, got {self.reps!r}")
        shots = self.shots
        if shots is not None and (isinstance(shots, bool) or not isinstance(shots, int) or shots < 1):
            raise ValueError(f"shots must be a positive integer or None, got {shots!r}")
        if self.device is not None and self.optimizer == "ADAM":
            raise ValueError(ADAM_ON_A_DEVICE)
        if qubits > MAX_QUBITS:
            raise ValueError(f"{qubits} qubits; the simulator takes at most {MAX_QUBITS}")

    @property
    def objective_words(self) -> str:
        return f"CVaR {self.alpha:g} of the energy" if self.alpha < 1 else "mean energy"


@dataclass
class VariationalRun:
    """The trained circuit's readout: ``distribution`` is exact (or the noisy backend's), ``counts`` the
    ``readout_shots`` measurements of it; ``facts`` what every result reports about the run."""

    found: OptimizerResult
    distribution: FloatArray
    counts: np.ndarray[Any, np.dtype[np.int64]]
    readout_shots: int
    sampled_on_backend: bool
    facts: dict[str, Any]

    @property
    def curve(self) -> list[float]:
        return [float(v) for v in self.found.curve]


class _Circuit:
    """The circuit of a setup, its differentiable statevector and its initial point."""

    def __init__(self, setup: VariationalSetup, energy: Any, n: int, rng: np.random.Generator) -> None:
        reps = setup.reps
        if setup.kind == "VQE":
            ansatz = Ansatz(setup.ansatz, n, reps)
            self.qiskit = ansatz.qiskit_circuit()
            self.x0 = rng.uniform(-np.pi, np.pi, ansatz.num_parameters)
            self.state_of: Callable[[Any], Any] = lambda w: ansatz.apply(
                zero_state(n, 1, ansatz.complex_amplitudes), w
            )
        else:
            from qiskit.circuit.library import qaoa_ansatz

            assert setup.ising is not None, "QAOA needs the problem's Ising operator"
            self.qiskit = qaoa_ansatz(setup.ising(), reps=reps)  # parameters: betas, then gammas
            ramp = (np.arange(reps) + 0.5) / reps
            self.x0 = np.concatenate([0.75 * (1 - ramp), 0.75 * ramp])
            self.state_of = lambda w: qaoa_state(energy, w[:reps], w[reps:], n)

    def distribution(self, weights: Any) -> Any:
        return probabilities(self.state_of(weights))[0]


def _simulation_words(setup: VariationalSetup, shots: int | None, runner: Any, channel: Any) -> str:
    if channel is not None and runner is not None:
        return (
            f"ADAM on the gradient of the {channel.describe()} of the circuit transpiled for "
            f"{setup.noise_model}; the energy curve is that channel's; the final circuit measured by "
            f"{runner.describe()}"
        )
    if runner is not None:
        return f"{runner.describe()} per evaluation"
    return "exact statevector (torch)" if shots is None else f"statevector sampled with {shots} shots"


class _Evaluation:
    """The energy of the circuit's weights as the run evaluates it: exact, sampled, on the noisy
    backend, or (ADAM under a noise model) on the differentiable noisy channel; and the final readout."""

    def __init__(self, setup: VariationalSetup, energy_np: FloatArray, emit: Emitter | None) -> None:
        import torch

        self.setup, self.n = setup, int(np.log2(len(energy_np)))
        setup.check(self.n)
        off_ideal = setup.noise_model is not None or setup.device is not None
        self.shots = DEFAULT_NOISY_SHOTS if off_ideal and setup.shots is None else setup.shots
        self.energy = torch.as_tensor(energy_np)
        self.rng = np.random.default_rng(setup.seed)
        self.circuit = _Circuit(setup, self.energy, self.n, self.rng)
        self.runner = prepare_runner(
            self.circuit.qiskit,
            list(self.circuit.qiskit.parameters),
            shots=self.shots,
            seed=setup.seed,
            noise_model=setup.noise_model,
            device=setup.device,
            emit=emit,
            percent=5,
        )
        self.channel = None
        if self.runner is not None and setup.optimizer == "ADAM":
            from qmlstudio_worker.quantum.noisy_density import check_noisy_training_qubits, from_noisy_circuit

            check_noisy_training_qubits(self.n, 1, "one_row")  # before compiling a circuit too large for it
            self.channel = from_noisy_circuit(self.runner)
            check_noisy_training_qubits(self.channel.qubits, 1, "one_row")

    def on_backend(self, weights: Any) -> FloatArray:
        assert self.runner is not None
        w = weights.detach().numpy() if hasattr(weights, "detach") else np.asarray(weights)
        found = self.runner.probabilities(np.asarray(w, dtype=np.float64)[None, :])[0]
        return np.asarray(found, dtype=np.float64)

    def objective(self, weights: Any) -> Any:
        import torch

        alpha = self.setup.alpha
        if self.channel is not None:
            return cvar(self.channel.probabilities(weights.reshape(1, -1))[0], self.energy, alpha)
        if self.runner is not None:
            return cvar(torch.as_tensor(self.on_backend(weights)), self.energy, alpha)
        probs = self.circuit.distribution(weights)
        if self.shots is None:
            return cvar(probs, self.energy, alpha)
        exact = np.clip(probs.detach().numpy(), 0, None)
        measured = self.rng.multinomial(self.shots, exact / exact.sum()) / self.shots
        return cvar(torch.as_tensor(np.asarray(measured, dtype=np.float64)), self.energy, alpha)

    def read_out(self, weights: FloatArray) -> tuple[FloatArray, np.ndarray[Any, np.dtype[np.int64]], int]:
        """(distribution, counts, shots) of the trained circuit: measured where it ran."""
        import torch

        readout = self.shots if self.shots is not None else READOUT_SHOTS
        if self.runner is not None:
            final = self.on_backend(weights)
            return final, np.rint(final * readout).astype(np.int64), readout
        with torch.no_grad():
            final = np.asarray(self.circuit.distribution(torch.as_tensor(weights)).numpy(), dtype=np.float64)
        return final, self.rng.multinomial(readout, final / final.sum()), readout

    def facts(self, found: OptimizerResult, readout: int) -> dict[str, Any]:
        setup, runner, channel = self.setup, self.runner, self.channel
        return {
            "solver": "SamplingVQE" if setup.kind == "VQE" else "QAOA",
            "readout_shots": readout,
            "convergence": [float(v) for v in found.curve],
            "optimizer": {**found.describe(), "maxiter": setup.maxiter},
            "reps": setup.reps,
            "shots": self.shots,
            "simulation": _simulation_words(setup, self.shots, runner, channel),
            "noise_model": setup.noise_model,
            "device": setup.device.name if setup.device is not None else None,
            "backend_run": runner.summary() if runner is not None else None,
            "noisy_training": channel.training_summary() if channel is not None else None,
            "circuit": circuit_summary(self.circuit.qiskit),
            "parameters": [float(v) for v in found.x],
            "seed": setup.seed,
        }


def optimise_and_read_out(
    energy_np: FloatArray,
    setup: VariationalSetup,
    emit: Emitter | None,
    describe: str,
    progress: tuple[float, float] = (10, 75),
) -> VariationalRun:
    """Train the setup's circuit on the tabulated ``energy_np`` and measure it; see the module docstring.
    ``describe`` names the problem's qubits in the log; ``progress`` is (start, span) of its percentages."""
    evaluation = _Evaluation(setup, energy_np, emit)
    start, span = progress
    if emit is not None:
        summary = circuit_summary(evaluation.circuit.qiskit)
        simulation = _simulation_words(setup, evaluation.shots, evaluation.runner, evaluation.channel)
        emit.log(
            f"{setup.kind}: {describe}, reps {setup.reps}, {setup.optimizer} {setup.maxiter} iterations, "
            f"{setup.objective_words}, {simulation}; "
            f"circuit depth {summary['depth']}, {summary['two_qubit_gates']} two-qubit gates"
        )
        emit.progress(start, "optimizing", "executing")

    def on_step(step: int, value: float) -> None:
        if emit is not None and (step % 10 == 0 or step == setup.maxiter):
            emit.metric("energy", value, step=step)
            done = min(step, setup.maxiter)
            emit.progress(
                start + span * done / setup.maxiter, f"iteration {done}/{setup.maxiter}", "executing"
            )

    x0 = evaluation.circuit.x0
    found = minimize(evaluation.objective, x0, setup.optimizer, setup.maxiter, setup.seed, on_step)
    final, counts, readout = evaluation.read_out(found.x)
    on_backend = evaluation.runner is not None
    return VariationalRun(found, final, counts, readout, on_backend, evaluation.facts(found, readout))


def convergence_chart(kind: str, optimizer: str, curve: list[float], label: str) -> dict[str, Any]:
    """The energy per evaluation (COBYLA) or step of the optimizer."""
    return {
        "type": "line",
        "title": f"{kind} convergence: energy per {'evaluation' if optimizer == 'COBYLA' else 'step'}",
        "label": label,
        "series": [{"name": "energy", "data": [round(v, 10) for v in curve]}],
        "categories": list(range(1, len(curve) + 1)),
    }
