"""The classical portfolio selection (problems.portfolio_optimization.selection), the forecast metrics, naive
baselines (qmlstudio_worker.ml.forecast_metrics), against hand-computed values."""

from __future__ import annotations

import io
import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.ml import forecast_metrics as fm
from qmlstudio_worker.problems.portfolio_optimization.selection import (
    PortfolioProblem,
    build_problem,
    daily_returns,
    run_portfolio,
    solve_exact,
)
from qmlstudio_worker.protocol import Emitter

REPO_ROOT = Path(__file__).resolve().parents[3]
STOCKS_CSV = REPO_ROOT / "samples" / "five_companies_stock.csv"
EXAMPLE_STOCKS = ["AAPL", "GOOG", "META", "AMZN", "NVDA"]  # the example body's stocks_names


@pytest.fixture(scope="module")
def prices() -> pd.DataFrame:
    return pd.read_csv(STOCKS_CSV)


def tiny_problem(risk_factor: float = 1.0, budget: int = 2) -> PortfolioProblem:
    # Objectives for budget 2, q = 1 (risk - return):
    #   {A,B}: 0.1 + 0.3 - 0.30 = 0.10   {A,C}: 0.1 + 0.2 - 0.25 = 0.05
    #   {B,C}: 0.3 + 0.2 + 2*0.1 - 0.35 = 0.35
    return PortfolioProblem(
        assets=("A", "B", "C"),
        mu=np.array([0.1, 0.2, 0.15]),
        sigma=np.array([[0.1, 0.0, 0.0], [0.0, 0.3, 0.1], [0.0, 0.1, 0.2]]),
        risk_factor=risk_factor,
        budget=budget,
    )


def brute_force(problem: PortfolioProblem) -> tuple[tuple[int, ...], float]:
    """Independent check: every bit string, keep those with the budget, take the least objective."""
    best: tuple[tuple[int, ...], float] | None = None
    for bits in itertools.product((0, 1), repeat=problem.size):
        if sum(bits) != problem.budget:
            continue
        x = np.array(bits, dtype=float)
        value = float(problem.risk_factor * x @ problem.sigma @ x - problem.mu @ x)
        if best is None or value < best[1]:
            best = (bits, value)
    assert best is not None
    return best


def test_tiny_problem_hand_values_and_brute_force() -> None:
    problem = tiny_problem()
    ranked = solve_exact(problem)
    assert [r.assets for r in ranked] == [("A", "C"), ("A", "B"), ("B", "C")]
    assert [r.objective for r in ranked] == pytest.approx([0.05, 0.10, 0.35])
    assert ranked[0].expected_return == pytest.approx(0.25)
    assert ranked[0].risk == pytest.approx(0.3)
    bits, value = brute_force(problem)
    assert ranked[0].bits == bits
    assert ranked[0].objective == pytest.approx(value)


def test_risk_factor_zero_picks_the_highest_returns() -> None:
    best = solve_exact(tiny_problem(risk_factor=0.0))[0]
    assert best.assets == ("B", "C")
    assert best.objective == pytest.approx(-0.35)


@pytest.mark.parametrize("risk_factor", [0.0, 0.5, 2.0, 5.0])
@pytest.mark.parametrize("budget", [1, 2, 3, 4, 5])
def test_sample_file_optimum_equals_brute_force_and_respects_budget(
    prices: pd.DataFrame, risk_factor: float, budget: int
) -> None:
    problem = build_problem(daily_returns(prices, EXAMPLE_STOCKS), risk_factor, budget)
    ranked = solve_exact(problem)
    assert len(ranked) == math.comb(5, budget)
    assert all(sum(r.bits) == budget and len(r.assets) == budget for r in ranked)
    objectives = [r.objective for r in ranked]
    assert objectives == sorted(objectives)
    bits, value = brute_force(problem)
    assert ranked[0].bits == bits
    assert ranked[0].objective == pytest.approx(value, abs=1e-15)


def test_qubo_matches_objective_plus_budget_penalty_on_every_bit_string() -> None:
    problem = tiny_problem(risk_factor=0.7)
    q, offset = problem.to_qubo(penalty=3.0)
    assert np.allclose(q, np.triu(q))
    energies = {}
    for bits in itertools.product((0, 1), repeat=3):
        x = np.array(bits, dtype=float)
        expected = problem.objective(bits) + 3.0 * (sum(bits) - problem.budget) ** 2
        assert float(x @ q @ x) + offset == pytest.approx(expected)
        energies[bits] = float(x @ q @ x) + offset
    # With the default penalty the QUBO's ground state is the constrained optimum.
    q, offset = problem.to_qubo()
    ground = min(itertools.product((0, 1), repeat=3), key=lambda b: float(np.array(b) @ q @ np.array(b)))
    assert ground == solve_exact(problem)[0].bits
    program = problem.to_quadratic_program()
    assert [v["name"] for v in program["variables"]] == ["A", "B", "C"]
    assert program["constraints"][0] == {"name": "budget", "linear": [1.0] * 3, "sense": "==", "rhs": 2}
    assert program["objective"]["linear"] == pytest.approx([-0.1, -0.2, -0.15])


def test_mean_and_covariance_from_hand_prices() -> None:
    frame = pd.DataFrame({"Date": ["d1", "d2", "d3"], "X": [100.0, 110.0, 99.0], "Y": [50.0, 55.0, 60.5]})
    returns = daily_returns(frame, ["Y", "X"])
    assert list(returns.columns) == ["Y", "X"]
    problem = build_problem(returns, 1.0, 1)
    # X returns 0.1, -0.1 (mean 0, variance 0.02); Y returns 0.1, 0.1 (mean 0.1, variance 0).
    assert problem.mu == pytest.approx([0.1, 0.0])
    assert problem.sigma == pytest.approx(np.array([[0.0, 0.0], [0.0, 0.02]]))
    # Budget 1: Y gives -0.1, X gives 0.02.
    assert solve_exact(problem)[0].assets == ("Y",)


def test_unknown_stock_names_are_refused_by_name(prices: pd.DataFrame) -> None:
    with pytest.raises(JobValidationError) as caught:
        daily_returns(prices, ["AAPL", "MSFT", "TSLA"])
    assert "MSFT" in caught.value.message
    assert "TSLA" in caught.value.message
    assert "AAPL," not in caught.value.message.split("(")[0]
    assert caught.value.field == "/params/stocks_names"
    with pytest.raises(JobValidationError, match="Date"):
        daily_returns(prices, ["Date"])
    with pytest.raises(JobValidationError, match="repeats AAPL"):
        daily_returns(prices, ["AAPL", "AAPL"])


def test_budget_above_the_number_of_stocks_is_refused(prices: pd.DataFrame) -> None:
    with pytest.raises(JobValidationError) as caught:
        build_problem(daily_returns(prices, ["AAPL", "GOOG"]), 0.5, 3)
    assert caught.value.field == "/params/budget"


def test_run_portfolio_emits_valid_lines_and_result(prices: pd.DataFrame, parse_protocol_lines) -> None:
    stream = io.StringIO()
    params = {"stocks_names": EXAMPLE_STOCKS, "risk_factor": 0.5, "budget": 2}
    result = run_portfolio(params, prices, Emitter(stream))
    lines = parse_protocol_lines(stream.getvalue())
    charts = [line["chart"] for line in lines if line["type"] == "chart"]
    assert [c["type"] for c in charts] == ["bar", "bar", "heatmap"]
    assert charts == result["charts"]
    assert charts[0]["categories"] == EXAMPLE_STOCKS
    assert sum(charts[0]["series"][0]["data"]) == 2
    assert len(charts[1]["series"][0]["data"]) == 10
    assert len(charts[2]["series"]) == 5
    assert all(len(s["data"]) == 5 for s in charts[2]["series"])
    metrics = {line["name"]: line["value"] for line in lines if line["type"] == "metric"}
    assert metrics == {
        "expected_return": result["expected_return"],
        "risk": result["risk"],
        "objective": result["objective"],
    }
    assert len(result["selection"]) == 2
    assert result["objective"] == pytest.approx(0.5 * result["risk"] - result["expected_return"])
    assert result["objective"] == result["ranked"][0]["objective"] == min(charts[1]["series"][0]["data"])
    assert run_portfolio(params, prices) == {**result}  # deterministic, emitter optional


# ----- forecast metrics -------------------------------------------------------------------------------


def test_regression_metrics_hand_computed() -> None:
    # errors 0, -1, 1, 0; mean actual 2.5, SS_tot 5, SS_res 2.
    metrics = fm.regression_metrics([1, 2, 3, 4], [1, 3, 2, 4])
    assert metrics["mse"] == pytest.approx(0.5)
    assert metrics["rmse"] == pytest.approx(math.sqrt(0.5))
    assert metrics["mae"] == pytest.approx(0.5)
    assert metrics["mape"] == pytest.approx((1 / 2 + 1 / 3) / 4 * 100)
    assert metrics["r2"] == pytest.approx(0.6)
    # Steps 1->2 (+, forecast 1->3 +), 2->3 (+, forecast 2->2 flat), 3->4 (+, forecast 3->4 +).
    assert metrics["direction_accuracy"] == pytest.approx(2 / 3)


def test_undefined_metrics_are_none_not_nan() -> None:
    assert fm.mape([0, 0], [1, 2]) is None
    assert fm.mape([0, 2], [1, 3]) == pytest.approx(50.0)  # zero targets are skipped
    assert fm.r2([3, 3, 3], [3, 2, 4]) is None
    assert fm.direction_accuracy([5], [6]) is None
    assert fm.direction_accuracy([5], [6], previous=[4]) == 1.0


def test_a_forecast_that_never_moves_has_no_direction_accuracy() -> None:
    # "No change" at every step (persistence) predicts no direction, whether the actual values move or not.
    assert fm.direction_accuracy([11, 9, 9], [10, 11, 9], previous=[10, 11, 9]) is None
    assert fm.direction_accuracy([10, 10], [10, 10], previous=[10, 10]) is None
    assert fm.direction_accuracy([11, 12, 14], [11, 11, 12]) is None  # scored against the target before
    # One predicted move is enough to score every step: up (right), then flat while the actual falls (wrong).
    assert fm.direction_accuracy([11, 9], [12, 11], previous=[10, 11]) == 0.5


def test_mismatched_or_non_finite_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="3 values but predicted has 2"):
        fm.mse([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="finite"):
        fm.mae([1, float("nan")], [1, 2])


def test_baselines_on_the_same_split() -> None:
    series = [10, 12, 11, 13, 15, 14]
    assert fm.persistence_forecast(series, 4).tolist() == [13, 15]
    assert fm.seasonal_naive_forecast(series, 4, 2).tolist() == [11, 13]
    results = fm.evaluate_forecast(series, [15, 14], test_start=4, season_length=2)
    assert set(results) == {"model", "persistence", "seasonal_naive"}
    assert results["model"]["rmse"] == 0.0
    assert results["model"]["direction_accuracy"] == 1.0
    # Persistence: errors 2, 1 -> MSE 2.5, MAE 1.5; it never moves, so it states no direction: not
    # applicable (None), not 0.
    assert results["persistence"]["mse"] == pytest.approx(2.5)
    assert results["persistence"]["mae"] == pytest.approx(1.5)
    assert results["persistence"]["direction_accuracy"] is None
    # Seasonal naive (2 back): errors 4, 1 -> MSE 8.5; 13->11 down (actual up), 15->13 down (actual down).
    assert results["seasonal_naive"]["mse"] == pytest.approx(8.5)
    assert results["seasonal_naive"]["direction_accuracy"] == 0.5
    assert "seasonal_naive" not in fm.evaluate_forecast(series, [15, 14], test_start=4)


def test_baselines_refuse_a_test_part_without_enough_history() -> None:
    with pytest.raises(ValueError, match="seasonal-naive"):
        fm.seasonal_naive_forecast([1, 2, 3, 4], 2, 3)
    with pytest.raises(ValueError, match="persistence"):
        fm.persistence_forecast([1, 2, 3], 0)


def test_persistence_on_the_stock_series_and_emitted_metrics(
    prices: pd.DataFrame, parse_protocol_lines
) -> None:
    close = prices["AAPL"].to_numpy()
    start = int(len(close) * 0.8)
    # A forecast that is worse than persistence (yesterday's value shifted by a constant) scores worse.
    worse = fm.persistence_forecast(close, start) + 1.0
    results = fm.evaluate_forecast(close, worse, start, season_length=5)
    assert results["model"]["rmse"] > results["persistence"]["rmse"]
    assert results["persistence"]["r2"] is not None
    assert results["persistence"]["r2"] > 0.9
    stream = io.StringIO()
    fm.emit_metrics(Emitter(stream), results)
    names = [line["name"] for line in parse_protocol_lines(stream.getvalue())]
    assert names[:6] == list(fm.METRIC_NAMES)
    assert "persistence_rmse" in names
    assert "seasonal_naive_direction_accuracy" in names
    # Persistence's direction accuracy is not applicable on the real prices: no metric line, not a 0.
    assert results["persistence"]["direction_accuracy"] is None
    assert "persistence_direction_accuracy" not in names
    chart = fm.comparison_chart(results)
    assert chart["categories"] == ["rmse", "mae"]
    assert [s["name"] for s in chart["series"]] == ["model", "persistence", "seasonal_naive"]
