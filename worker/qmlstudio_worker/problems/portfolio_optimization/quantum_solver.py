"""Portfolio optimization with SamplingVQE and QAOA, simulated exactly.

The problem is :class:`.selection.PortfolioProblem` (minimize q x^T Sigma x - mu^T x
over binary x with sum(x) = budget), turned into a QUBO with the budget as a penalty, one qubit per asset
(qubit i = asset i, Qiskit's little-endian bit order):

    H(x) = [q x^T Sigma x - mu^T x + P (sum(x) - budget)^2] / (ub - lb),

ub and lb being the objective's upper and lower bounds from its coefficients (the sums of its positive
and of its negative coefficients, as qiskit-optimization's QuadraticProgramToQubo bounds it). The penalty
P = 1.1 (ub - lb) is exact (breaking the budget always costs more than any objective gain) without
Qiskit's extra "+ 1", which would drown objectives made of daily returns (~1e-3); dividing by (ub - lb)
puts the energies on a scale of 1 for the optimizer and QAOA's angles.

- **SamplingVQE**: the chosen ansatz (RealAmplitudes by default) with ``reps`` repetitions on |0...0>;
  the optimizer minimizes the CVaR of the measured bitstrings' energy with alpha ``VQE_CVAR_ALPHA`` = 0.5
  (Qiskit's SamplingVQE ``aggregation=0.5``: the mean energy of the best half of the probability mass).
  The plain mean (``aggregation`` None or 1) has local minima at a near-optimal basis state: on the
  qiskit-finance reference (4 assets, seed 123, RealAmplitudes reps 3, COBYLA 500) the mean settled on
  x = [1, 0, 1, 0] for 7 of 8 initial points, CVaR 0.5 put the optimum [1, 0, 0, 1] first for all 8
  (probability 0.50-0.60). Initial point: uniform in [-pi, pi] from the seed.
- **QAOA**: |+>^n, then ``reps`` times exp(-i gamma H) (a diagonal phase) and the X mixer RX(2 beta) on every
  qubit; Qiskit's ``qaoa_ansatz`` with parameters (beta_1..p, gamma_1..p). Initial point: a linear ramp.

The energies are exact (the statevector's probabilities) when ``shots`` is None; with ``shots``, every
evaluation samples that many bitstrings from the exact distribution with a seeded generator (the
shot-based simulator). With ``noise_model`` (a fake IBM device, :mod:`.backends`) every evaluation and the
final measurement run the Qiskit circuit, transpiled for that device, under its noise (``shots``, 1024 by
default). ADAM under a noise model follows the gradient of the exact noisy channel instead: the same
transpiled circuit and noise in the differentiable torch density-matrix simulation of :mod:`.noisy_density`
(its energy curve is that channel's, the infinite-shot expectation; the final circuit is still measured on
Aer with ``shots``). ADAM on a real device is refused (``optimizers.ADAM_ON_A_DEVICE``).
The trained circuit is then measured ``shots`` times
(1024 when the run is exact) and the selection is the best feasible bitstring among those measurements,
as Qiskit's MinimumEigenOptimizer picks it (its classical objective is cheap to evaluate); the result
also names the most probable feasible bitstring, and reports the selection next to the
exact optimum (enumeration, :func:`.selection.solve_exact`), the gap between them, the
optimum's probability, the top bitstrings and the convergence curve. Bitstrings are written in asset
order (character i is asset i of ``stocks_names``).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from qmlstudio_worker.problems.portfolio_optimization.selection import (
    PortfolioProblem,
    RankedSelection,
    solve_exact,
)
from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum.backends import DEFAULT_NOISY_SHOTS, prepare_runner
from qmlstudio_worker.quantum.devices import DeviceTarget
from qmlstudio_worker.quantum.optimizers import ADAM_ON_A_DEVICE, minimize
from qmlstudio_worker.quantum.statevector import Ansatz, circuit_summary, probabilities, zero_state

PENALTY_FACTOR = 1.1
READOUT_SHOTS = 1024  # measurements of the final circuit when the run itself is exact
TOP_BITSTRINGS = 10
MAX_QUBITS = 16
VQE_CVAR_ALPHA = 0.5  # SamplingVQE's aggregation; see the module docstring
FloatArray = np.ndarray[Any, np.dtype[np.float64]]
Chart = dict[str, Any]


def objective_bounds(problem: PortfolioProblem) -> tuple[float, float]:
    """(lb, ub) of q x^T Sigma x - mu^T x over binary x, from the signs of its coefficients."""
    coefficients = np.concatenate([(problem.risk_factor * problem.sigma).ravel(), -problem.mu])
    return float(coefficients[coefficients < 0].sum()), float(coefficients[coefficients > 0].sum())


def basis_bits(n: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    """(2**n, n): bit q of every basis index (qubit q = asset q)."""
    return (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1


def energies(problem: PortfolioProblem) -> tuple[FloatArray, float, float]:
    """The scaled QUBO energy of every basis state, the penalty P and the scale (ub - lb)."""
    lb, ub = objective_bounds(problem)
    scale = (ub - lb) or 1.0
    penalty = PENALTY_FACTOR * scale
    q, offset = problem.to_qubo(penalty)
    bits = basis_bits(problem.size).astype(np.float64)
    raw = np.einsum("zi,ij,zj->z", bits, q, bits) + offset
    return raw / scale, penalty, scale


def ising_operator(problem: PortfolioProblem) -> Any:
    """The scaled QUBO as a Qiskit ``SparsePauliOp`` (x_i = (1 - Z_i) / 2), for the QAOA circuit."""
    from qiskit.quantum_info import SparsePauliOp

    lb, ub = objective_bounds(problem)
    scale = (ub - lb) or 1.0
    q, offset = problem.to_qubo(PENALTY_FACTOR * scale)
    n = problem.size
    terms: dict[str, float] = {"I" * n: offset}

    def label(*qubits: int) -> str:
        return "".join("Z" if (n - 1 - k) in qubits else "I" for k in range(n))

    def add(key: str, value: float) -> None:
        terms[key] = terms.get(key, 0.0) + value

    for i in range(n):
        add("I" * n, q[i, i] / 2)
        add(label(i), -q[i, i] / 2)
        for j in range(i + 1, n):
            add("I" * n, q[i, j] / 4)
            add(label(i), -q[i, j] / 4)
            add(label(j), -q[i, j] / 4)
            add(label(i, j), q[i, j] / 4)
    return SparsePauliOp(list(terms), [v / scale for v in terms.values()]).simplify()


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

    order = torch.argsort(energy, stable=True)
    ranked = probs[order]
    before = torch.cumsum(ranked, 0) - ranked
    taken = torch.minimum(ranked, torch.clamp(alpha - before, min=0.0))
    return (taken * energy[order]).sum() / alpha


def _budget_label(bitstring: str, budget: int) -> str:
    """A top-bitstrings category: the bitstring, marked when it breaks the budget (a user reads which
    of the most probable bitstrings are selections at all)."""
    chosen = bitstring.count("1")
    if chosen == budget:
        return bitstring
    return f"{bitstring} ({'over' if chosen > budget else 'under'} budget)"


def _bitstring(index: int, n: int) -> str:
    return "".join(str((index >> i) & 1) for i in range(n))


def _sampled(probs: FloatArray, shots: int, rng: np.random.Generator) -> FloatArray:
    counts = rng.multinomial(shots, probs / probs.sum())
    return np.asarray(counts, dtype=np.float64) / shots


def _solve(
    kind: str,
    problem: PortfolioProblem,
    optimizer: str,
    maxiter: int,
    reps: int,
    seed: int,
    shots: int | None,
    ansatz_name: str,
    emit: Emitter | None,
    noise_model: str | None = None,
    device: DeviceTarget | None = None,
    aggregation: float | None = None,
) -> dict[str, Any]:
    import torch

    n = problem.size
    alpha = 1.0 if aggregation is None else float(aggregation)
    if not 0.0 < alpha <= 1.0:
        raise ValueError(f"aggregation (CVaR alpha) must be in (0, 1], got {aggregation!r}")
    if n > MAX_QUBITS:
        raise ValueError(f"{n} assets need {n} qubits; the simulator takes at most {MAX_QUBITS}")
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise ValueError(f"circuit repetitions must be a positive integer, got {reps!r}")
    if shots is not None and (isinstance(shots, bool) or not isinstance(shots, int) or shots < 1):
        raise ValueError(f"shots must be a positive integer or None, got {shots!r}")
    if (noise_model is not None or device is not None) and shots is None:
        shots = DEFAULT_NOISY_SHOTS
    started = time.monotonic()
    energy_np, penalty, scale = energies(problem)
    energy = torch.as_tensor(energy_np)
    rng = np.random.default_rng(seed)

    if kind == "VQE":
        ansatz = Ansatz(ansatz_name, n, reps)
        circuit = ansatz.qiskit_circuit()
        x0 = rng.uniform(-np.pi, np.pi, ansatz.num_parameters)

        def state_of(weights: Any) -> Any:
            return ansatz.apply(zero_state(n, 1, ansatz.complex_amplitudes), weights)

    else:
        from qiskit.circuit.library import qaoa_ansatz

        circuit = qaoa_ansatz(ising_operator(problem), reps=reps)
        ramp = (np.arange(reps) + 0.5) / reps
        x0 = np.concatenate([0.75 * (1 - ramp), 0.75 * ramp])  # betas, then gammas

        def state_of(weights: Any) -> Any:
            return qaoa_state(energy, weights[:reps], weights[reps:], n)

    if device is not None and optimizer == "ADAM":
        raise ValueError(ADAM_ON_A_DEVICE)
    # weights are [betas, gammas] for QAOA and the ansatz's θ in order: the circuits' sorted parameters
    noisy = prepare_runner(
        circuit,
        list(circuit.parameters),
        shots=shots,
        seed=seed,
        noise_model=noise_model,
        device=device,
        emit=emit,
        percent=5,
    )

    channel = None  # ADAM under a noise model: the differentiable noisy channel of the transpiled circuit
    if noisy is not None and optimizer == "ADAM":
        from qmlstudio_worker.quantum.noisy_density import check_noisy_training_qubits, from_noisy_circuit

        channel = from_noisy_circuit(noisy)
        check_noisy_training_qubits(channel.qubits, 1, "one_row")

    def distribution(weights: Any) -> Any:
        return probabilities(state_of(weights))[0]

    def noisy_distribution(weights: Any) -> FloatArray:
        assert noisy is not None
        w = weights.detach().numpy() if hasattr(weights, "detach") else np.asarray(weights)
        return np.asarray(noisy.probabilities(np.asarray(w, dtype=np.float64)[None, :])[0], dtype=np.float64)

    def objective(weights: Any) -> Any:
        if channel is not None:
            return cvar(channel.probabilities(weights.reshape(1, -1))[0], energy, alpha)
        if noisy is not None:
            return cvar(torch.as_tensor(noisy_distribution(weights)), energy, alpha)
        probs = distribution(weights)
        if shots is None:
            return cvar(probs, energy, alpha)
        return cvar(torch.as_tensor(_sampled(probs.detach().numpy(), shots, rng)), energy, alpha)

    summary = circuit_summary(circuit)
    simulation = (
        f"ADAM on the gradient of the {channel.describe()} of the circuit transpiled for {noise_model}; "
        f"the energy curve is that channel's; the final circuit measured by {noisy.describe()}"
        if channel is not None and noisy is not None
        else noisy.describe() + " per evaluation"
        if noisy is not None
        else "exact statevector (torch)"
        if shots is None
        else f"statevector sampled with {shots} shots"
    )
    if emit is not None:
        emit.log(
            f"{kind}: {n} qubits, {'ansatz ' + ansatz_name + ', ' if kind == 'VQE' else ''}reps {reps}, "
            f"{optimizer} {maxiter} iterations, "
            f"{'CVaR ' + format(alpha, 'g') + ' of the energy' if alpha < 1 else 'mean energy'}, "
            f"{simulation}; "
            f"circuit depth {summary['depth']}, {summary['two_qubit_gates']} two-qubit gates"
        )
        emit.progress(10, "optimizing", "executing")

    def on_step(step: int, value: float) -> None:
        if emit is not None and (step % 10 == 0 or step == maxiter):
            emit.metric("energy", value, step=step)
            done = min(step, maxiter)
            emit.progress(10 + 75 * done / maxiter, f"iteration {done}/{maxiter}", "executing")

    found = minimize(objective, x0, optimizer, maxiter, seed, on_step)
    readout_shots = shots if shots is not None else READOUT_SHOTS
    if noisy is not None:  # the final circuit measured on the noisy simulator: its own counts
        final = noisy_distribution(found.x)
        counts = np.rint(final * readout_shots).astype(np.int64)
    else:
        with torch.no_grad():
            exact_final = distribution(torch.as_tensor(found.x)).numpy()
        counts = rng.multinomial(readout_shots, exact_final / exact_final.sum())
        final = exact_final if shots is None else counts / readout_shots

    if emit is not None:
        emit.progress(88, "selection, exact optimum and charts", "post-processing")
    ranked = solve_exact(problem)
    optimum = ranked[0]
    optimum_index = sum(bit << i for i, bit in enumerate(optimum.bits))
    bits = basis_bits(n)
    feasible = bits.sum(axis=1) == problem.budget
    objective_values = np.asarray([problem.objective(row) for row in bits])
    order = sorted(range(2**n), key=lambda z: (-final[z], objective_values[z]))
    observed = [z for z in range(2**n) if counts[z] > 0 and feasible[z]]
    if observed:  # Qiskit's MinimumEigenOptimizer: the best feasible bitstring among the samples
        chosen = min(observed, key=lambda z: (objective_values[z], -final[z]))
        rule = f"best feasible bitstring among {readout_shots} measurements of the final circuit"
    else:
        chosen = next(z for z in order if feasible[z])
        rule = "no feasible bitstring was measured: the most probable feasible bitstring"
        if emit is not None:
            emit.log(f"{kind}: {readout_shots} measurements held no feasible selection", level="warning")
    most_likely_feasible = next(z for z in order if feasible[z])
    chosen_bits = tuple(int(b) for b in bits[chosen])
    selection = RankedSelection(
        assets=tuple(problem.assets[i] for i in range(n) if chosen_bits[i]),
        bits=chosen_bits,
        objective=problem.objective(chosen_bits),
        expected_return=problem.expected_return(chosen_bits),
        risk=problem.risk(chosen_bits),
    )
    gap = selection.objective - optimum.objective
    top = [
        {
            "bitstring": _bitstring(z, n),
            "assets": [problem.assets[i] for i in range(n) if bits[z][i]],
            "probability": float(final[z]),
            "objective": float(objective_values[z]),
            "feasible": bool(feasible[z]),
        }
        for z in order[:TOP_BITSTRINGS]
    ]
    curve = [float(v) for v in found.curve]
    charts: list[Chart] = [  # the handler adds the selection chart (ml.portfolio.selection_chart)
        {
            "type": "line",
            "title": f"{kind} convergence: energy per {'evaluation' if optimizer == 'COBYLA' else 'step'}",
            "label": f"{'CVaR ' + format(alpha, 'g') + ' of the ' if alpha < 1 else ''}energy (scaled QUBO)",
            "series": [{"name": "energy", "data": [round(v, 10) for v in curve]}],
            "categories": list(range(1, len(curve) + 1)),
        },
        {
            "type": "bar",
            "title": f"{kind}: most probable bitstrings (asset order, budget {problem.budget})",
            "label": "probability",
            "series": [
                {"name": "probability", "data": [round(float(final[z]), 10) for z in order[:TOP_BITSTRINGS]]}
            ],
            "categories": [_budget_label(_bitstring(z, n), problem.budget) for z in order[:TOP_BITSTRINGS]],
        },
    ]
    result: dict[str, Any] = {
        "solver": "SamplingVQE" if kind == "VQE" else "QAOA",
        "model": kind,
        "selection": list(selection.assets),
        "bits": list(selection.bits),
        "objective": selection.objective,
        "expected_return": selection.expected_return,
        "risk": selection.risk,
        "volatility": math.sqrt(max(selection.risk, 0.0)),
        "exact_optimum": {
            "selection": list(optimum.assets),
            "bits": list(optimum.bits),
            "objective": optimum.objective,
        },
        "gap": gap,
        "optimality_gap": gap,
        "relative_gap": gap / abs(optimum.objective) if optimum.objective else None,
        "found_optimum": selection.bits == optimum.bits,
        "optimum_probability": float(final[optimum_index]),
        "feasible_probability": float(final[feasible].sum()),
        "selection_rule": rule,
        "readout_shots": readout_shots,
        "most_likely_bitstring": top[0]["bitstring"],
        "most_likely_feasible": top[0]["feasible"],
        "most_likely_feasible_selection": [
            problem.assets[i] for i in range(n) if bits[most_likely_feasible][i]
        ],
        "top_bitstrings": top,
        "convergence": curve,
        "optimizer": {**found.describe(), "maxiter": maxiter},
        "reps": reps,
        "ansatz": ansatz_name if kind == "VQE" else "QAOA",
        "aggregation": alpha if alpha < 1 else None,
        "shots": shots,
        "simulation": simulation,
        "noise_model": noise_model,
        "device": device.name if device is not None else None,
        "backend_run": noisy.summary() if noisy is not None else None,
        "noisy_training": channel.training_summary() if channel is not None else None,
        "qubo": {"penalty": penalty, "scale": scale, "penalty_rule": "1.1 x (ub - lb) of the objective"},
        "circuit": summary,
        "parameters": [float(v) for v in found.x],
        "seed": seed,
        "charts": charts,
        "duration_seconds": round(time.monotonic() - started, 3),
    }
    if emit is not None:
        emit.metric("expected_return", selection.expected_return)
        emit.metric("risk", selection.risk)
        emit.metric("objective", selection.objective)
        emit.metric("optimum_probability", result["optimum_probability"])
        emit.metric("optimality_gap", gap)
        emit.metric("feasible_probability", result["feasible_probability"])
        for chart in charts:
            emit.chart_spec(chart)
        emit.log(
            f"{kind} selection: {', '.join(selection.assets)} (objective {selection.objective:.6g}); "
            f"exact optimum {', '.join(optimum.assets)} ({optimum.objective:.6g}), "
            f"its probability {result['optimum_probability']:.3f}"
        )
        emit.progress(95, "solved", "post-processing")
    return result


def solve_sampling_vqe(
    problem: PortfolioProblem,
    optimizer: str = "COBYLA",
    maxiter: int = 100,
    reps: int = 2,
    seed: int = 42,
    shots: int | None = None,
    ansatz: str = "RealAmplitudes",
    emit: Emitter | None = None,
    noise_model: str | None = None,
    device: DeviceTarget | None = None,
    aggregation: float | None = VQE_CVAR_ALPHA,
) -> dict[str, Any]:
    """SamplingVQE on the portfolio QUBO; see the module docstring for what the result holds.
    ``aggregation`` is the CVaR alpha (None or 1: the mean energy)."""
    return _solve(
        "VQE", problem, optimizer, maxiter, reps, seed, shots, ansatz, emit, noise_model, device, aggregation
    )


def solve_qaoa(
    problem: PortfolioProblem,
    optimizer: str = "COBYLA",
    maxiter: int = 100,
    reps: int = 2,
    seed: int = 42,
    shots: int | None = None,
    emit: Emitter | None = None,
    noise_model: str | None = None,
    device: DeviceTarget | None = None,
) -> dict[str, Any]:
    """QAOA on the portfolio QUBO; see the module docstring for what the result holds."""
    return _solve("QAOA", problem, optimizer, maxiter, reps, seed, shots, "QAOA", emit, noise_model, device)
