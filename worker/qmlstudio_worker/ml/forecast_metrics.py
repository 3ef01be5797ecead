"""Regression metrics for one-step-ahead forecasts and the naive baselines they are shown next to.

All functions take plain sequences or numpy arrays. The test split is given by ``test_start``: the
forecasts are for ``series[test_start:]``, each made with the values before it, so the baselines are
computed on exactly the same targets:

- persistence (tomorrow = today): the forecast of ``series[t]`` is ``series[t - 1]``;
- seasonal naive (the value one season ago): the forecast of ``series[t]`` is ``series[t - season]``.

Metrics: MSE, RMSE, MAE, MAPE (percent, over the targets that are not zero), R2 and direction accuracy
(the share of steps whose forecast moves from the previous actual value in the same direction as the
actual value does; a flat step matches a flat forecast). A forecast that never moves from the previous
actual value, as persistence by construction, predicts no direction at all: its direction accuracy is not
applicable (None), not 0 (before, persistence scored 0 on every series whose values change, which read
as "always wrong"). Undefined metrics are None, never NaN, so that the rest can be emitted as protocol
metrics (a None is not emitted; the output page shows "n/a").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from qmlstudio_worker.protocol import Emitter

ArrayLike = Sequence[float] | np.ndarray
Metrics = dict[str, float | None]
METRIC_NAMES = ("mse", "rmse", "mae", "mape", "r2", "direction_accuracy")


def _vector(name: str, values: ArrayLike) -> np.ndarray:
    array = np.asarray(values, dtype=float).reshape(-1)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must contain only finite numbers")
    return array


def _pair(actual: ArrayLike, predicted: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    a, p = _vector("actual", actual), _vector("predicted", predicted)
    if a.shape != p.shape:
        raise ValueError(f"actual has {a.size} values but predicted has {p.size}")
    if a.size == 0:
        raise ValueError("no values to score")
    return a, p


def mse(actual: ArrayLike, predicted: ArrayLike) -> float:
    a, p = _pair(actual, predicted)
    return float(np.mean((a - p) ** 2))


def rmse(actual: ArrayLike, predicted: ArrayLike) -> float:
    return float(np.sqrt(mse(actual, predicted)))


def mae(actual: ArrayLike, predicted: ArrayLike) -> float:
    a, p = _pair(actual, predicted)
    return float(np.mean(np.abs(a - p)))


def mape(actual: ArrayLike, predicted: ArrayLike) -> float | None:
    """Mean absolute percentage error in percent, skipping zero targets; None when all are zero."""
    a, p = _pair(actual, predicted)
    nonzero = a != 0
    if not nonzero.any():
        return None
    return float(np.mean(np.abs((a[nonzero] - p[nonzero]) / a[nonzero])) * 100.0)


def r2(actual: ArrayLike, predicted: ArrayLike) -> float | None:
    """1 - SS_res / SS_tot; None when the targets are constant (SS_tot == 0)."""
    a, p = _pair(actual, predicted)
    total = float(np.sum((a - a.mean()) ** 2))
    if total == 0:
        return None
    return 1.0 - float(np.sum((a - p) ** 2)) / total


def direction_accuracy(
    actual: ArrayLike, predicted: ArrayLike, previous: ArrayLike | None = None
) -> float | None:
    """Share of steps where sign(predicted - previous) == sign(actual - previous).

    ``previous`` is the actual value before each target (for the first test target, the last training
    value). Without it, the steps are scored from the second target on, against the target before. None
    when no step is left, and None when the forecast never moves from the previous value (persistence):
    a forecast of "no change" at every step states no direction, so there is nothing to score."""
    a, p = _pair(actual, predicted)
    if previous is None:
        a, p, prev = a[1:], p[1:], a[:-1]
    else:
        prev = _vector("previous", previous)
        if prev.shape != a.shape:
            raise ValueError(f"previous has {prev.size} values but actual has {a.size}")
    if a.size == 0:
        return None
    predicted_moves = np.sign(p - prev)
    if not predicted_moves.any():
        return None
    return float(np.mean(predicted_moves == np.sign(a - prev)))


def regression_metrics(actual: ArrayLike, predicted: ArrayLike, previous: ArrayLike | None = None) -> Metrics:
    return {
        "mse": mse(actual, predicted),
        "rmse": rmse(actual, predicted),
        "mae": mae(actual, predicted),
        "mape": mape(actual, predicted),
        "r2": r2(actual, predicted),
        "direction_accuracy": direction_accuracy(actual, predicted, previous),
    }


def _check_start(series: np.ndarray, test_start: int, lag: int, what: str) -> None:
    if lag < 1:
        raise ValueError(f"{what} needs a lag of at least 1, got {lag}")
    if not lag <= test_start < series.size:
        raise ValueError(
            f"{what} needs {lag} value(s) before the test part and at least one test value: "
            f"test_start {test_start}, series length {series.size}"
        )


def persistence_forecast(series: ArrayLike, test_start: int) -> np.ndarray:
    """Forecasts for series[test_start:]: each target's previous value (tomorrow = today)."""
    s = _vector("series", series)
    _check_start(s, test_start, 1, "the persistence baseline")
    return s[test_start - 1 : -1].copy()


def seasonal_naive_forecast(series: ArrayLike, test_start: int, season_length: int) -> np.ndarray:
    """Forecasts for series[test_start:]: the value ``season_length`` steps earlier."""
    s = _vector("series", series)
    _check_start(s, test_start, season_length, "the seasonal-naive baseline")
    return s[test_start - season_length : s.size - season_length].copy()


def aligned_naive_forecast(series: ArrayLike, test_start: int, reference: ArrayLike) -> np.ndarray:
    """Forecasts for series[test_start:]: the value of each target's reference row (``reference[t]``, e.g.
    last year's week at the same distance from Easter)."""
    s = _vector("series", series)
    rows = np.asarray(reference, dtype=np.int64)[test_start : s.size]
    if rows.size != s.size - test_start or (rows < 0).any() or (rows >= np.arange(test_start, s.size)).any():
        raise ValueError("every test target needs an earlier reference row")
    return s[rows].copy()


#: Baselines named for people (the result's keys stay identifiers).
BASELINE_LABELS = {"seasonal_naive_easter": "seasonal naive, Easter aligned"}


def baseline_label(name: str) -> str:
    return BASELINE_LABELS.get(name, name.replace("_", " "))


def evaluate_forecast(
    series: ArrayLike,
    predicted: ArrayLike,
    test_start: int,
    season_length: int | None = None,
    aligned_reference: ArrayLike | None = None,
) -> dict[str, Metrics]:
    """The model's metrics on series[test_start:] next to the persistence baseline and, when
    ``season_length`` is given, the seasonal-naive baseline, all on the same targets; direction accuracy
    is measured from each target's previous actual value. With ``aligned_reference`` (each row's reference
    row, aligned on Easter) also ``seasonal_naive_easter``, seasonal naive from those rows: the reference an
    Easter-aligned forecaster is a residual on, shown so that its gain is not taken for the model's."""
    s = _vector("series", series)
    _check_start(s, test_start, 1, "scoring")
    actual = s[test_start:]
    previous = s[test_start - 1 : -1]
    results: dict[str, Metrics] = {
        "model": regression_metrics(actual, predicted, previous),
        "persistence": regression_metrics(actual, persistence_forecast(s, test_start), previous),
    }
    if season_length is not None:
        naive = seasonal_naive_forecast(s, test_start, season_length)
        results["seasonal_naive"] = regression_metrics(actual, naive, previous)
    if aligned_reference is not None:
        aligned = aligned_naive_forecast(s, test_start, aligned_reference)
        results["seasonal_naive_easter"] = regression_metrics(actual, aligned, previous)
    return results


def emit_metrics(emit: Emitter, results: Mapping[str, Metrics]) -> None:
    """One metric line per defined value: the model's as ``rmse`` etc., a baseline's as
    ``persistence_rmse`` / ``seasonal_naive_rmse``."""
    for method, metrics in results.items():
        prefix = "" if method == "model" else f"{method}_"
        for name, value in metrics.items():
            if value is not None:
                emit.metric(prefix + name, value)


def comparison_chart(
    results: Mapping[str, Metrics], names: Sequence[str] = ("rmse", "mae")
) -> dict[str, Any]:
    """A bar chart of the chosen error metrics, one series per method (model and baselines)."""
    return {
        "type": "bar",
        "title": "Test error: model and baselines",
        "label": "error",
        "series": [
            {"name": method, "data": [metrics.get(name) for name in names]}
            for method, metrics in results.items()
        ],
        "categories": list(names),
    }


#: Relative RMSE difference below which a model and a baseline tie.
TIE_TOLERANCE = 1e-6


def baseline_verdict(model: str, metrics: Metrics, baselines: Mapping[str, Metrics]) -> dict[str, Any] | None:
    """Whether the model's test RMSE beats the best (lowest-RMSE) baseline, as a plain sentence with the
    numbers: ``{"beats", "baseline", "model_rmse", "baseline_rmse", "sentence"}``; None without RMSEs."""
    model_rmse = metrics.get("rmse")
    scored = {name: m["rmse"] for name, m in baselines.items() if m.get("rmse") is not None}
    if model_rmse is None or not scored:
        return None
    name = min(scored, key=lambda key: float(scored[key] or 0.0))
    best = float(scored[name] or 0.0)
    # Equal to rounding (a float32 network at its reference forecast) is not beating it.
    beats = float(model_rmse) < best * (1 - TIE_TOLERANCE)
    label = baseline_label(name)
    sentence = (
        f"{model} beat its best baseline, {label}: test RMSE {float(model_rmse):.6g} against {best:.6g}."
        if beats
        else f"{model} did not beat its best baseline, {label}: test RMSE {float(model_rmse):.6g} "
        f"against {best:.6g}."
    )
    return {
        "beats": beats,
        "baseline": label,
        "model_rmse": float(model_rmse),
        "baseline_rmse": best,
        "sentence": sentence,
    }
