"""The "portfolio-optimization" job: choose ``budget`` stocks out of ``stocks_names``.

Body (``schemas/problems/portfolio-optimization.json`` job.bodySchema): ``model`` Classical solves the
binary mean-variance selection exactly (:func:`.selection.run_portfolio`: every
feasible selection enumerated, q = ``risk_factor``); VQE and QAOA solve the same problem's QUBO with the
quantum solvers of ``qmlstudio_worker.problems.portfolio_optimization.quantum_solver`` (``optimizer_alg``,
``optimizer_alg_maxiter``, ``circuit_repetition``, ``quantum_shots``), next to the exact optimum.
The classical run's baseline is the average feasible selection (what picking ``budget`` stocks at random
gives on average). Metrics: expected_return (mean daily return of the selection), risk (variance of its
daily return) and objective (risk_factor * risk - expected_return, lower is better).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.run_record import seed_everything
from qmlstudio_worker.jobs.support import (
    Stopwatch,
    base_result,
    device_target,
    open_job_inputs,
    quantum_shots,
    run_record,
    warn_device_note,
)
from qmlstudio_worker.problems.portfolio_optimization.selection import (
    PortfolioProblem,
    RankedSelection,
    build_problem,
    covariance_heatmap,
    daily_returns,
    ranked_objective_chart,
    run_portfolio,
    selection_chart,
    solve_exact,
)
from qmlstudio_worker.quantum.run_facts import FINAL_CIRCUIT, quantum_run

PROBLEM = "portfolio-optimization"
#: The model family each quantum choice runs (the resource estimate builds what the job runs from it).
ESTIMATE_MODELS = {"VQE": "VQE", "QAOA": "QAOA"}


def circuit_qubits(params: Mapping[str, Any], _rows: int | None) -> int:
    """The QUBO's qubits: one per stock the body names."""
    names = params.get("stocks_names")
    return len(names) if isinstance(names, list) else 0


METRICS = ("expected_return", "risk", "objective")
#: A quantum run's metrics next to METRICS: the exact optimum's probability in the final measurements,
#: the gap of the selection's objective above the optimum's (0 when found), all budget-feasible bitstrings'
QUANTUM_METRICS = ("optimum_probability", "optimality_gap", "feasible_probability")


def _metrics_of(problem: PortfolioProblem, bits: Sequence[int]) -> dict[str, float]:
    return {
        "expected_return": problem.expected_return(bits),
        "risk": problem.risk(bits),
        "objective": problem.objective(bits),
    }


def _average_selection(ranked: Sequence[RankedSelection | dict[str, Any]]) -> dict[str, float]:
    def value(r: RankedSelection | dict[str, Any], name: str) -> float:
        return float(r[name] if isinstance(r, dict) else getattr(r, name))

    return {name: float(np.mean([value(r, name) for r in ranked])) for name in METRICS}


def _run_quantum(params: dict[str, Any], inputs: Any, emit: Any) -> dict[str, Any]:
    # Imported here: a classical run never pays for the quantum modules.
    from qmlstudio_worker.problems.portfolio_optimization import quantum_solver as portfolio_vqe

    shots = quantum_shots(params, inputs.quantum_noise_model, device_ok=True)
    model = params["model"]
    emit.progress(2, "computing daily returns")
    returns = daily_returns(inputs.frame, params["stocks_names"])
    problem = build_problem(returns, float(params["risk_factor"]), int(params["budget"]))
    ranked = solve_exact(problem)
    exact = ranked[0]
    solve = portfolio_vqe.solve_sampling_vqe if model == "VQE" else portfolio_vqe.solve_qaoa
    emit.log(f"running {model} (the solver reports its own progress, metrics and charts)")
    solved = solve(
        problem,
        optimizer=params["optimizer_alg"],
        maxiter=int(params["optimizer_alg_maxiter"]),
        reps=int(params["circuit_repetition"]),
        seed=inputs.seed,
        shots=shots,
        noise_model=inputs.quantum_noise_model,
        device=device_target(params, inputs),
        emit=emit,
    )
    chosen_assets = set(solved["selection"])
    bits = [1 if asset in chosen_assets else 0 for asset in problem.assets]
    chosen = RankedSelection(
        assets=tuple(a for a, b in zip(problem.assets, bits, strict=True) if b),
        bits=tuple(bits),
        objective=problem.objective(bits),
        expected_return=problem.expected_return(bits),
        risk=problem.risk(bits),
    )
    solver_charts = list(solved.get("charts") or [])  # already emitted by the solver
    convergence = solved.get("convergence")
    if convergence and not any("onvergence" in str(c.get("title")) for c in solver_charts):
        solver_charts.append(
            {
                "type": "line",
                "title": f"{model} convergence",
                "label": "objective",
                "series": [{"name": model, "data": [float(v) for v in convergence]}],
                "categories": list(range(1, len(convergence) + 1)),
            }
        )
        emit.chart_spec(solver_charts[-1])
    ours = [selection_chart(problem, chosen), ranked_objective_chart(ranked), covariance_heatmap(problem)]
    for chart in ours:
        emit.chart_spec(chart)
    charts = [ours[0], *solver_charts, *ours[1:]]
    return {
        "model": model,
        "problem": problem,
        "chosen": chosen,
        "baseline": {"name": "exact optimum (enumeration)", "metrics": _metrics_of(problem, exact.bits)},
        "charts": charts,
        "solver": {k: v for k, v in solved.items() if k not in ("charts", "selection")},
        "exact_selection": list(exact.assets),
        "observations": len(returns),
        "ranked": ranked,
    }


def _classical_result(params: dict[str, Any], inputs: Any, emit: Any) -> tuple[dict[str, Any], int]:
    """The exact optimum beside the average feasible selection; (result, observations)."""
    solved = run_portfolio(params, inputs.frame, emit=None)
    emit.progress(80, "solved")
    metrics = {name: float(solved[name]) for name in METRICS}
    for name, value in metrics.items():
        emit.metric(name, value)
    for chart in solved["charts"]:
        emit.chart_spec(chart)
    emit.log(f"selection: {', '.join(solved['selection'])} (objective {solved['objective']:.6g})")
    baseline = {"name": "average feasible selection", "metrics": _average_selection(solved["ranked"])}
    result = base_result(
        problem=PROBLEM,
        model="Classical",
        model_type="Classical",
        metrics=metrics,
        baseline=baseline,
        charts=solved["charts"],
    )
    keys = ("bits", "stocks_names", "budget", "risk_factor", "solver", "feasible_selections")
    result["selection"] = {"assets": solved["selection"], **{k: solved[k] for k in keys}}
    result["selection"]["ranked"] = solved["ranked"][:20]
    result["training_data"] = {
        "observations": int(solved["observations"]),
        "mean_returns": solved["mean_returns"],
        "covariance": solved["covariance"],
        "quadratic_program": solved["quadratic_program"],
    }
    return result, int(solved["observations"])


def _quantum_result(params: dict[str, Any], inputs: Any, emit: Any) -> tuple[dict[str, Any], int]:
    """VQE or QAOA beside the exact optimum; (result, observations)."""
    model = str(params["model"])
    q = _run_quantum(params, inputs, emit)
    problem, chosen = q["problem"], q["chosen"]
    metrics = _metrics_of(problem, chosen.bits)  # the solver emitted them as metric lines
    # how close the quantum run came to the exact optimum (emitted by the solver as well):
    # the optimum's probability in the final circuit's measurements, the objective above it
    metrics.update(
        {name: float(q["solver"][name]) for name in QUANTUM_METRICS if q["solver"].get(name) is not None}
    )
    result = base_result(
        problem=PROBLEM,
        model=model,
        model_type="Quantum",
        metrics=metrics,
        baseline=q["baseline"],
        charts=q["charts"],
    )
    result["selection"] = {
        "assets": list(chosen.assets),
        "bits": list(chosen.bits),
        "stocks_names": list(problem.assets),
        "budget": problem.budget,
        "risk_factor": problem.risk_factor,
        "solver": model,
        "exact_selection": q["exact_selection"],
        "solver_details": q["solver"],
    }
    result["quantum_run"] = quantum_run(q["solver"], FINAL_CIRCUIT)
    result["training_data"] = {
        "observations": int(q["observations"]),
        "mean_returns": [float(m) for m in problem.mu],
        "covariance": problem.sigma.tolist(),
        "quadratic_program": problem.to_quadratic_program(),
    }
    return result, int(q["observations"])


def run(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    emit = ctx.emitter
    clock = Stopwatch()
    inputs = open_job_inputs(params, ctx, "file")
    warn_device_note(params, emit)
    model = str(params["model"])
    emit.log(
        f"{PROBLEM}: {inputs.label}, {params['budget']} of {', '.join(params['stocks_names'])}, "
        f"risk factor {params['risk_factor']}, model {model}, seed {inputs.seed}"
    )
    seed_everything(inputs.seed)
    solve = _classical_result if model == "Classical" else _quantum_result
    result, observations = solve(params, inputs, emit)
    result["dataset"] = inputs.dataset_summary(observations + 1)
    result["run_record"] = run_record(params, inputs, {"model": model})
    result["seed"] = inputs.seed
    result["duration_seconds"] = clock.seconds()
    emit.progress(100, "done")
    return result
