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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from qmlstudio_worker.problems.portfolio_optimization.selection import (
    PortfolioProblem,
    RankedSelection,
    solve_exact,
)
from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum.devices import DeviceTarget
from qmlstudio_worker.quantum.variational import (
    MAX_QUBITS,
    VariationalRun,
    VariationalSetup,
    basis_bits,
    bitstring,
    convergence_chart,
    optimise_and_read_out,
)

PENALTY_FACTOR = 1.1
TOP_BITSTRINGS = 10
VQE_CVAR_ALPHA = 0.5  # SamplingVQE's aggregation; see the module docstring
FloatArray = np.ndarray[Any, np.dtype[np.float64]]
Chart = dict[str, Any]


def objective_bounds(problem: PortfolioProblem) -> tuple[float, float]:
    """(lb, ub) of q x^T Sigma x - mu^T x over binary x, from the signs of its coefficients."""
    coefficients = np.concatenate([(problem.risk_factor * problem.sigma).ravel(), -problem.mu])
    return float(coefficients[coefficients < 0].sum()), float(coefficients[coefficients > 0].sum())


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


def _budget_label(bitstring: str, budget: int) -> str:
    """A top-bitstrings category: the bitstring, marked when it breaks the budget (a user reads which
    of the most probable bitstrings are selections at all)."""
    chosen = bitstring.count("1")
    if chosen == budget:
        return bitstring
    return f"{bitstring} ({'over' if chosen > budget else 'under'} budget)"


def _selection(problem: PortfolioProblem, bits: Sequence[int]) -> RankedSelection:
    chosen = tuple(int(b) for b in bits)
    return RankedSelection(
        assets=tuple(problem.assets[i] for i in range(problem.size) if chosen[i]),
        bits=chosen,
        objective=problem.objective(chosen),
        expected_return=problem.expected_return(chosen),
        risk=problem.risk(chosen),
    )


@dataclass(frozen=True)
class _Readout:
    """The measured circuit read as selections: the basis states by probability, the chosen one and why."""

    final: FloatArray
    order: list[int]
    feasible: np.ndarray[Any, np.dtype[np.bool_]]
    objective_values: FloatArray
    chosen: int
    most_likely_feasible: int
    rule: str


def _read_selection(
    problem: PortfolioProblem, run: VariationalRun, kind: str, emit: Emitter | None
) -> _Readout:
    """Qiskit's MinimumEigenOptimizer's pick: the best feasible bitstring among the measurements (the most
    probable feasible one when none was measured). A sampled run reports its measured distribution."""
    n = problem.size
    exact_or_backend = run.sampled_on_backend or run.facts["shots"] is None
    final = run.distribution if exact_or_backend else run.counts / run.readout_shots
    bits = basis_bits(n)
    feasible = bits.sum(axis=1) == problem.budget
    objective_values = np.asarray([problem.objective(row) for row in bits])
    order = sorted(range(2**n), key=lambda z: (-final[z], objective_values[z]))
    observed = [z for z in range(2**n) if run.counts[z] > 0 and feasible[z]]
    most_likely_feasible = next(z for z in order if feasible[z])
    if observed:
        chosen = min(observed, key=lambda z: (objective_values[z], -final[z]))
        rule = f"best feasible bitstring among {run.readout_shots} measurements of the final circuit"
    else:
        chosen = most_likely_feasible
        rule = "no feasible bitstring was measured: the most probable feasible bitstring"
        if emit is not None:
            emit.log(f"{kind}: {run.readout_shots} measurements held no feasible selection", level="warning")
    return _Readout(final, order, feasible, objective_values, chosen, most_likely_feasible, rule)


def _top_bitstrings(problem: PortfolioProblem, readout: _Readout) -> list[dict[str, Any]]:
    n, bits = problem.size, basis_bits(problem.size)
    return [
        {
            "bitstring": bitstring(z, n),
            "assets": [problem.assets[i] for i in range(n) if bits[z][i]],
            "probability": float(readout.final[z]),
            "objective": float(readout.objective_values[z]),
            "feasible": bool(readout.feasible[z]),
        }
        for z in readout.order[:TOP_BITSTRINGS]
    ]


def _charts(
    problem: PortfolioProblem, setup: VariationalSetup, run: VariationalRun, readout: _Readout
) -> list[Chart]:
    """Convergence and the most probable bitstrings; the handler adds the selection chart."""
    shown = readout.order[:TOP_BITSTRINGS]
    cvar_words = f"CVaR {setup.alpha:g} of the " if setup.alpha < 1 else ""
    return [
        convergence_chart(setup.kind, setup.optimizer, run.curve, f"{cvar_words}energy (scaled QUBO)"),
        {
            "type": "bar",
            "title": f"{setup.kind}: most probable bitstrings (asset order, budget {problem.budget})",
            "label": "probability",
            "series": [{"name": "probability", "data": [round(float(readout.final[z]), 10) for z in shown]}],
            "categories": [_budget_label(bitstring(z, problem.size), problem.budget) for z in shown],
        },
    ]


def _report(emit: Emitter | None, kind: str, result: dict[str, Any], optimum: RankedSelection) -> None:
    if emit is None:
        return
    for name in ("expected_return", "risk", "objective", "optimum_probability", "optimality_gap"):
        emit.metric(name, result[name])
    emit.metric("feasible_probability", result["feasible_probability"])
    for chart in result["charts"]:
        emit.chart_spec(chart)
    emit.log(
        f"{kind} selection: {', '.join(result['selection'])} (objective {result['objective']:.6g}); "
        f"exact optimum {', '.join(optimum.assets)} ({optimum.objective:.6g}), "
        f"its probability {result['optimum_probability']:.3f}"
    )
    emit.progress(95, "solved", "post-processing")


def _solve(problem: PortfolioProblem, setup: VariationalSetup, emit: Emitter | None) -> dict[str, Any]:
    n = problem.size
    if n > MAX_QUBITS:
        raise ValueError(f"{n} assets need {n} qubits; the simulator takes at most {MAX_QUBITS}")
    started = time.monotonic()
    energy_np, penalty, scale = energies(problem)
    describe = f"{n} qubits" + (f", ansatz {setup.ansatz}" if setup.kind == "VQE" else "")
    run = optimise_and_read_out(energy_np, setup, emit, describe, progress=(10, 75))
    if emit is not None:
        emit.progress(88, "selection, exact optimum and charts", "post-processing")
    optimum = solve_exact(problem)[0]
    optimum_index = sum(bit << i for i, bit in enumerate(optimum.bits))
    readout = _read_selection(problem, run, setup.kind, emit)
    selection = _selection(problem, basis_bits(n)[readout.chosen])
    likely = _selection(problem, basis_bits(n)[readout.most_likely_feasible])
    top = _top_bitstrings(problem, readout)
    gap = selection.objective - optimum.objective
    result: dict[str, Any] = {
        **run.facts,
        "model": setup.kind,
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
        "optimum_probability": float(readout.final[optimum_index]),
        "feasible_probability": float(readout.final[readout.feasible].sum()),
        "selection_rule": readout.rule,
        "most_likely_bitstring": top[0]["bitstring"],
        "most_likely_feasible": top[0]["feasible"],
        "most_likely_feasible_selection": list(likely.assets),
        "top_bitstrings": top,
        "ansatz": setup.ansatz if setup.kind == "VQE" else "QAOA",
        "aggregation": setup.alpha if setup.alpha < 1 else None,
        "qubo": {"penalty": penalty, "scale": scale, "penalty_rule": "1.1 x (ub - lb) of the objective"},
        "charts": _charts(problem, setup, run, readout),
        "duration_seconds": round(time.monotonic() - started, 3),
    }
    _report(emit, setup.kind, result, optimum)
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
    alpha = 1.0 if aggregation is None else float(aggregation)
    setup = VariationalSetup("VQE", reps, optimizer, maxiter, seed, shots, ansatz, alpha, noise_model, device)
    return _solve(problem, setup, emit)


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

    def ising() -> Any:
        return ising_operator(problem)

    setup = VariationalSetup(
        "QAOA", reps, optimizer, maxiter, seed, shots, "QAOA", 1.0, noise_model, device, ising
    )
    return _solve(problem, setup, emit)
