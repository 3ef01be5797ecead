"""Portfolio optimization: the binary mean-variance selection of exactly ``budget`` assets.

Decision variables x_i in {0, 1} (asset i selected). With mu the mean daily return of each asset and Sigma
the covariance of the daily returns (both from the wide price file, one column per ticker), the problem is

    minimize   q * x^T Sigma x - mu^T x     subject to  sum_i x_i = budget,

q being ``risk_factor``. :class:`PortfolioProblem` holds it as a quadratic program description
(:meth:`PortfolioProblem.to_quadratic_program`) and as a penalized QUBO matrix
(:meth:`PortfolioProblem.to_qubo`) for the quantum solvers; :func:`solve_exact` enumerates every feasible
selection, which is the exact optimum. :func:`run_portfolio` is the whole classical job for a handler.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd  # type: ignore[import-untyped]

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.protocol import Emitter

# Enumeration is exact but combinatorial: refuse problems with more feasible selections than this.
MAX_FEASIBLE_SELECTIONS = 200_000
# The ranked-objective chart is a bar chart up to this many selections, a line chart beyond.
RANKED_BAR_LIMIT = 60
DATE_COLUMN_NAMES = ("date", "datetime", "timestamp", "time")

Chart = dict[str, Any]


@dataclass(frozen=True)
class PortfolioProblem:
    """q * x^T Sigma x - mu^T x over binary x with sum(x) == budget."""

    assets: tuple[str, ...]
    mu: np.ndarray
    sigma: np.ndarray
    risk_factor: float
    budget: int

    @property
    def size(self) -> int:
        return len(self.assets)

    def objective(self, x: Sequence[int] | np.ndarray) -> float:
        v = np.asarray(x, dtype=float)
        return float(self.risk_factor * v @ self.sigma @ v - self.mu @ v)

    def expected_return(self, x: Sequence[int] | np.ndarray) -> float:
        return float(self.mu @ np.asarray(x, dtype=float))

    def risk(self, x: Sequence[int] | np.ndarray) -> float:
        """The variance x^T Sigma x of the selection's summed daily return."""
        v = np.asarray(x, dtype=float)
        return float(v @ self.sigma @ v)

    def to_quadratic_program(self) -> dict[str, Any]:
        """A solver-neutral description: binary variables, objective (constant, linear, quadratic as a
        full symmetric matrix, x^T Q x) to minimize, and the budget equality constraint."""
        return {
            "name": "portfolio_mean_variance",
            "sense": "minimize",
            "variables": [{"name": asset, "type": "binary"} for asset in self.assets],
            "objective": {
                "constant": 0.0,
                "linear": [float(-m) for m in self.mu],
                "quadratic": (self.risk_factor * self.sigma).tolist(),
            },
            "constraints": [
                {
                    "name": "budget",
                    "linear": [1.0] * self.size,
                    "sense": "==",
                    "rhs": self.budget,
                }
            ],
        }

    def default_penalty(self) -> float:
        """A penalty large enough that breaking the budget never pays: above the objective's range."""
        spread = float(np.abs(self.risk_factor * self.sigma).sum() + np.abs(self.mu).sum())
        return max(1.0, 10.0 * spread)

    def to_qubo(self, penalty: float | None = None) -> tuple[np.ndarray, float]:
        """(Q, offset), Q upper-triangular, so that for every binary x
        x^T Q x + offset == objective(x) + penalty * (sum(x) - budget)^2 (x_i^2 == x_i folds the linear
        terms onto the diagonal)."""
        p = self.default_penalty() if penalty is None else float(penalty)
        n = self.size
        full = self.risk_factor * self.sigma + p * np.ones((n, n))
        linear = -self.mu - 2.0 * p * self.budget
        q = np.triu(full + full.T) - np.diag(np.diag(full))  # off-diagonal pairs summed, diagonal once
        q = q + np.diag(linear)
        return q, p * self.budget**2


@dataclass(frozen=True)
class RankedSelection:
    assets: tuple[str, ...]
    bits: tuple[int, ...]
    objective: float
    expected_return: float
    risk: float


def _refuse(message: str, field: str) -> JobValidationError:
    return JobValidationError(message, field=f"/params/{field}")


def _date_columns(frame: pd.DataFrame) -> list[str]:
    return [str(c) for c in frame.columns if str(c).strip().lower() in DATE_COLUMN_NAMES]


def daily_returns(prices: pd.DataFrame, stocks_names: Sequence[str]) -> pd.DataFrame:
    """Simple daily returns of the named price columns, in the order given.

    Rows with a missing price in any named column are removed first (a return spans two rows that both
    have prices). Unknown, repeated, non-numeric or non-positive columns are refused, naming them."""
    names = [str(name) for name in stocks_names]
    if not names:
        raise _refuse("stocks_names must name at least one stock", "stocks_names")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise _refuse(f"stocks_names repeats {', '.join(repeated)}", "stocks_names")
    dates = set(_date_columns(prices))
    available = [str(c) for c in prices.columns if str(c) not in dates]
    unknown = [name for name in names if name not in available]
    if unknown:
        raise _refuse(
            f"unknown stock names: {', '.join(unknown)} (the file has {', '.join(available) or 'none'})",
            "stocks_names",
        )
    frame = prices[names].apply(pd.to_numeric, errors="coerce")
    non_numeric = [name for name in names if frame[name].isna().all()]
    if non_numeric:
        raise _refuse(f"columns without numeric prices: {', '.join(non_numeric)}", "stocks_names")
    frame = frame.dropna()
    non_positive = [name for name in names if (frame[name] <= 0).any()]
    if non_positive:
        raise _refuse(f"columns with zero or negative prices: {', '.join(non_positive)}", "stocks_names")
    returns = frame.pct_change().iloc[1:]
    if len(returns) < 2:
        raise _refuse("at least three dated prices per stock are needed for a covariance", "file")
    return returns.astype(float)


def build_problem(returns: pd.DataFrame, risk_factor: float, budget: int) -> PortfolioProblem:
    """mu = mean daily return, Sigma = sample covariance (ddof 1) of the return columns."""
    n = returns.shape[1]
    if not math.isfinite(risk_factor) or risk_factor < 0:
        raise _refuse(f"risk_factor must be a finite number >= 0, got {risk_factor}", "risk_factor")
    if not 1 <= budget <= n:
        raise _refuse(f"budget must be between 1 and the number of stocks ({n}), got {budget}", "budget")
    values = returns.to_numpy(dtype=float)
    mu = values.mean(axis=0)
    sigma = np.atleast_2d(np.cov(values, rowvar=False, ddof=1))
    return PortfolioProblem(
        assets=tuple(str(c) for c in returns.columns),
        mu=mu,
        sigma=sigma,
        risk_factor=float(risk_factor),
        budget=int(budget),
    )


def solve_exact(problem: PortfolioProblem) -> list[RankedSelection]:
    """Every selection of exactly ``budget`` assets, best (lowest objective) first; ties keep the
    enumeration order (itertools.combinations over the given asset order)."""
    n, k = problem.size, problem.budget
    count = math.comb(n, k)
    if count > MAX_FEASIBLE_SELECTIONS:
        raise _refuse(
            f"{count} feasible selections of {k} out of {n} stocks is too many to enumerate "
            f"(at most {MAX_FEASIBLE_SELECTIONS})",
            "budget",
        )
    ranked: list[RankedSelection] = []
    for combo in itertools.combinations(range(n), k):
        bits = [0] * n
        for i in combo:
            bits[i] = 1
        ranked.append(
            RankedSelection(
                assets=tuple(problem.assets[i] for i in combo),
                bits=tuple(bits),
                objective=problem.objective(bits),
                expected_return=problem.expected_return(bits),
                risk=problem.risk(bits),
            )
        )
    ranked.sort(key=lambda r: r.objective)  # stable
    return ranked


def selection_chart(problem: PortfolioProblem, best: RankedSelection) -> Chart:
    return {
        "type": "bar",
        "title": "Selected stocks",
        "label": "selected (1) or not (0)",
        "series": [{"name": "selected", "data": list(best.bits)}],
        "categories": list(problem.assets),
    }


def ranked_objective_chart(ranked: Sequence[RankedSelection]) -> Chart:
    return {
        "type": "bar" if len(ranked) <= RANKED_BAR_LIMIT else "line",
        "title": "Objective of every feasible selection, best first",
        "label": "objective (q * risk - expected return)",
        "series": [{"name": "objective", "data": [r.objective for r in ranked]}],
        "categories": [" + ".join(r.assets) for r in ranked],
    }


def covariance_heatmap(problem: PortfolioProblem) -> Chart:
    """One series per row asset, cells {x: column asset, y: covariance}."""
    return {
        "type": "heatmap",
        "title": "Covariance of daily returns",
        "label": "covariance",
        "series": [
            {
                "name": row,
                "data": [
                    {"x": column, "y": float(problem.sigma[i, j])} for j, column in enumerate(problem.assets)
                ],
            }
            for i, row in enumerate(problem.assets)
        ],
        "categories": list(problem.assets),
    }


def run_portfolio(
    params: Mapping[str, Any], prices: pd.DataFrame, emit: Emitter | None = None
) -> dict[str, Any]:
    """The classical portfolio job: params ``stocks_names``, ``risk_factor``, ``budget`` (the job body's
    names) and the wide price frame. Emits progress, metrics and the three charts when ``emit`` is given;
    returns the result data (selection, expected_return, risk, objective, the quadratic program, the
    ranked selections and the charts)."""
    if emit is not None:
        emit.progress(10, "computing daily returns")
    returns = daily_returns(prices, params["stocks_names"])
    problem = build_problem(returns, float(params["risk_factor"]), int(params["budget"]))
    if emit is not None:
        emit.progress(40, f"enumerating {math.comb(problem.size, problem.budget)} feasible selections")
    ranked = solve_exact(problem)
    best = ranked[0]
    charts = [selection_chart(problem, best), ranked_objective_chart(ranked), covariance_heatmap(problem)]
    result: dict[str, Any] = {
        "selection": list(best.assets),
        "bits": list(best.bits),
        "expected_return": best.expected_return,
        "risk": best.risk,
        "volatility": math.sqrt(max(best.risk, 0.0)),
        "objective": best.objective,
        "risk_factor": problem.risk_factor,
        "budget": problem.budget,
        "stocks_names": list(problem.assets),
        "observations": len(returns),
        "feasible_selections": len(ranked),
        "ranked": [
            {
                "selection": list(r.assets),
                "objective": r.objective,
                "expected_return": r.expected_return,
                "risk": r.risk,
            }
            for r in ranked
        ],
        "mean_returns": [float(m) for m in problem.mu],
        "covariance": problem.sigma.tolist(),
        "quadratic_program": problem.to_quadratic_program(),
        "solver": "exact enumeration",
        "charts": charts,
    }
    if emit is not None:
        emit.progress(80, "solved")
        emit.metric("expected_return", best.expected_return)
        emit.metric("risk", best.risk)
        emit.metric("objective", best.objective)
        for chart in charts:
            emit.chart_spec(chart)
        emit.log(f"selection: {', '.join(best.assets)} (objective {best.objective:.6g})")
        emit.progress(100, "done")
    return result
