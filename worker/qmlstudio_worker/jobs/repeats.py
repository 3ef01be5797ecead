"""Repeated seeds: one job body run with the seeds seed, seed+1, ... and reported as one output.

The envelope's ``extension.repeats`` (the form's Repeats, 1 to 10) asks for it. Each repeat is the
problem's own handler with only the seed changed, so every baseline is computed on that repeat's split,
next to the model it is compared with. The result is the first repeat's (its model and run
record are the ones kept: inference uses that model) with:

- ``metrics``, ``baseline.metrics`` and ``baselines`` replaced by their means over the repeats;
- ``losses`` replaced by the per-epoch mean (the band is in ``repeats.losses``);
- every per-epoch or per-step line chart (loss and accuracy histories, optimizer traces, a forecast's
  predicted line) whose series differ between the seeds drawn with those series' means, each seed's
  series kept in ``repeats.curves`` (the page draws the mean with a band of ± one standard deviation);
  ``output_data.training_history`` is the per-epoch mean too;
- each confusion matrix the sum of every seed's (its title says "summed over n seeds"; a user comparing
  seeds sees all their test predictions at once, and each seed's matrix is in
  ``repeats.confusion_matrices``), as is ``confusion_matrix``;
- ``repeats``: the seeds, each repeat's metrics and baseline metrics, and for every metric its mean,
  sample standard deviation and 95% confidence interval of the mean (Student t with n-1 degrees of
  freedom), which the server's comparison reads to say whether a difference exceeds the noise.

Only the first repeat writes to the output folder; the others train in a temporary folder that is
removed, and their artifact, metric and chart lines are not forwarded (the live view follows the first
repeat's curves; the progress bar and the log cover all of them).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.run_record import check_seed
from qmlstudio_worker.protocol import Emitter

MAX_REPEATS = 10
CONFIDENCE = 0.95

Handler = Callable[[dict[str, Any], JobContext], dict[str, Any]]


def repeat_count(extension: Mapping[str, Any]) -> int:
    """The envelope's ``repeats``: 1 when absent or null; refused outside 1..10 naming the field."""
    value = extension.get("repeats")
    if value is None:
        return 1
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REPEATS:
        raise JobValidationError(
            f"Repeats must be a whole number from 1 to {MAX_REPEATS}, not {value!r}.", "/extension/repeats"
        )
    return value


def t_quantile(degrees_of_freedom: int) -> float:
    """The two-sided 95% quantile of Student's t."""
    from scipy import stats  # type: ignore[import-untyped]

    return float(stats.t.ppf(0.5 + CONFIDENCE / 2, degrees_of_freedom))


def summarize(values: Sequence[float | None]) -> dict[str, Any]:
    """Mean, sample standard deviation and the 95% Student-t interval of the mean of ``values`` (None
    entries, a metric a repeat could not compute, are left out of the statistics and kept in
    ``values``). With fewer than two numbers, sd and the interval are null."""
    numbers = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    n = len(numbers)
    out: dict[str, Any] = {
        "n": n,
        "mean": None,
        "sd": None,
        "ci_low": None,
        "ci_high": None,
        "values": [None if v is None else float(v) for v in values],
    }
    if n == 0:
        return out
    mean = sum(numbers) / n
    out["mean"] = mean
    if n >= 2:
        sd = math.sqrt(sum((v - mean) ** 2 for v in numbers) / (n - 1))
        half = t_quantile(n - 1) * sd / math.sqrt(n)
        out.update(sd=sd, ci_low=mean - half, ci_high=mean + half)
    return out


class RepeatEmitter(Emitter):
    """Forwards one repeat's lines to the job's emitter: progress scaled into the repeat's share of the
    bar and prefixed with its seed; artifact, metric and chart lines only for the first repeat."""

    def __init__(self, inner: Emitter, index: int, count: int, seed: int) -> None:
        self._inner = inner
        self._index = index
        self._count = count
        self._seed = seed
        self.finished = False
        self.percent = 0

    def emit(self, line: Mapping[str, Any]) -> None:
        kind = line.get("type")
        if kind in ("artifact", "metric", "chart") and self._index > 0:
            return
        if kind == "progress":
            scaled = (self._index * 100 + float(line["percent"])) / self._count
            line = {
                **line,
                "percent": round(scaled, 3),
                "stage": f"seed {self._seed} ({self._index + 1} of {self._count}): {line['stage']}",
            }
        self._inner.emit(line)


def _metric_stats(maps: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    names: list[str] = []
    for metric_map in maps:
        for name in metric_map:
            if name not in names:
                names.append(name)
    return {name: summarize([m.get(name) for m in maps]) for name in names}


def _means(stats: Mapping[str, Mapping[str, Any]]) -> dict[str, float | None]:
    return {name: stat["mean"] for name, stat in stats.items()}


def _curve_band(curves: Sequence[Sequence[float]]) -> dict[str, list[float]] | None:
    curves = [list(c) for c in curves if c]
    if len(curves) < 2:
        return None
    length = min(len(c) for c in curves)
    mean: list[float] = []
    sd: list[float] = []
    for i in range(length):
        stat = summarize([c[i] for c in curves])
        mean.append(float(stat["mean"]))
        sd.append(float(stat["sd"] or 0.0))
    return {"mean": mean, "sd": sd}


def _is_number(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _same_chart(result: Mapping[str, Any], chart: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The chart of the same type and title in another repeat's result, if it has one."""
    for other in result.get("charts") or []:
        if other.get("type") == chart.get("type") and other.get("title") == chart.get("title"):
            return dict(other)
    return None


def _point_stats(runs: Sequence[Sequence[float | None]], length: int) -> tuple[list[Any], list[Any]]:
    mean: list[Any] = []
    sd: list[Any] = []
    for i in range(length):
        stat = summarize([run[i] for run in runs])
        mean.append(stat["mean"])
        sd.append(stat["sd"])
    return mean, sd


def _repeated_curve(chart: dict[str, Any], charts: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """A per-epoch or per-step line chart over the repeats (``charts``, one per repeat in seed order):
    ``chart`` (the first repeat's copy) is cut to the points every repeat reached and each series that
    differs between the seeds is replaced by its mean; the returned entry holds those series' runs, mean
    and sd. None for a chart that is not such a curve (pairs such as ROC points; categories that differ,
    as a split that follows the seed gives) or whose series are the same for every seed."""
    if chart.get("type") != "line" or not chart.get("categories"):
        return None
    names = [s["name"] for s in chart["series"]]
    if any([s["name"] for s in other["series"]] != names for other in charts):
        return None
    if not all(_is_number(v) for other in charts for s in other["series"] for v in s["data"]):
        return None
    length = min(
        min(len(other["categories"]), *(len(s["data"]) for s in other["series"])) if other["series"] else 0
        for other in charts
    )
    if length == 0:
        return None
    categories = [str(c) for c in chart["categories"][:length]]
    if any([str(c) for c in other["categories"][:length]] != categories for other in charts):
        return None
    entry_series: list[dict[str, Any]] = []
    for index, name in enumerate(names):
        runs = [list(other["series"][index]["data"]) for other in charts]
        if all(run[:length] == runs[0][:length] for run in runs):
            continue  # the same for every seed (the actual values, a baseline on a fixed split): no band
        mean, sd = _point_stats(runs, length)
        entry_series.append({"name": name, "runs": runs, "mean": mean, "sd": sd})
    chart["categories"] = list(chart["categories"][:length])
    means = {s["name"]: s["mean"] for s in entry_series}
    chart["series"] = [
        {"name": s["name"], "data": means.get(s["name"], list(s["data"][:length]))} for s in chart["series"]
    ]
    if not entry_series:
        return None
    return {"title": chart["title"], "series": entry_series}


def _summed_matrix(
    chart: dict[str, Any], charts: Sequence[Mapping[str, Any]], seeds: Sequence[int]
) -> dict[str, Any] | None:
    """A confusion matrix over the repeats: ``chart`` becomes the sum of every seed's counts (its title
    says so) and the returned entry holds each seed's matrix. None when the seeds' classes differ."""
    names = [s["name"] for s in chart["series"]]
    categories = [str(c) for c in chart["categories"]]
    for other in charts:
        other_names = [s["name"] for s in other["series"]]
        if other_names != names or [str(c) for c in other["categories"]] != categories:
            return None
    matrices = [[[int(v or 0) for v in s["data"]] for s in other["series"]] for other in charts]
    if any([len(row) for row in m] != [len(row) for row in matrices[0]] for m in matrices):
        return None
    summed = [[sum(m[r][c] for m in matrices) for c in range(len(row))] for r, row in enumerate(matrices[0])]
    chart["title"] = f"{chart['title']} (summed over {len(seeds)} seeds, {seeds[0]} to {seeds[-1]})"
    chart["series"] = [{"name": name, "data": row} for name, row in zip(names, summed, strict=True)]
    return {
        "title": chart["title"],
        "runs": [{"seed": seed, "matrix": m} for seed, m in zip(seeds, matrices, strict=True)],
    }


def _repeated_charts(
    first: dict[str, Any], results: Sequence[Mapping[str, Any]], seeds: Sequence[int]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The first repeat's charts made charts of all repeats (curves: each varying series' mean; confusion
    matrices: the sum), with each seed's series and matrices: (curves, confusion matrices)."""
    curves: list[dict[str, Any]] = []
    matrices: list[dict[str, Any]] = []
    charts: list[dict[str, Any]] = []
    for original in first.get("charts") or []:
        chart = dict(original)
        charts.append(chart)
        others = [_same_chart(r, original) for r in results]
        if any(other is None for other in others):
            continue
        present = [o for o in others if o is not None]
        if chart.get("type") == "line":
            curve = _repeated_curve(chart, present)
            if curve is not None:
                curves.append(curve)
        elif chart.get("type") == "confusion_matrix":
            matrix = _summed_matrix(chart, present, seeds)
            if matrix is not None:
                matrices.append(matrix)
    if first.get("charts") is not None:
        first["charts"] = charts
    return curves, matrices


def _summed_confusion(results: Sequence[Mapping[str, Any]]) -> list[list[int]] | None:
    matrices = [r.get("confusion_matrix") for r in results]
    if not all(isinstance(m, list) for m in matrices):
        return None
    shapes = {tuple(len(row) for row in m) for m in matrices if isinstance(m, list)}
    if len(shapes) != 1:
        return None
    first = matrices[0]
    assert isinstance(first, list)
    return [
        [sum(int(m[r][c]) for m in matrices if isinstance(m, list)) for c in range(len(row))]
        for r, row in enumerate(first)
    ]


def _mean_history(results: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]] | None:
    """``output_data.training_history`` (per-epoch lists by name) as the mean over the repeats, over
    the epochs every repeat ran; None when a repeat has none."""
    histories = [(r.get("output_data") or {}).get("training_history") for r in results]
    if not all(isinstance(h, Mapping) for h in histories):
        return None
    first = histories[0]
    assert isinstance(first, Mapping)
    out: dict[str, list[Any]] = {}
    for name, values in first.items():
        runs = [h.get(name) for h in histories if isinstance(h, Mapping)]
        if not all(isinstance(run, list) and all(_is_number(v) for v in run) for run in runs):
            out[name] = values
            continue
        length = min(len(run) for run in runs if isinstance(run, list))
        out[name] = _point_stats([run for run in runs if isinstance(run, list)], length)[0]
    return out


def aggregate(results: Sequence[dict[str, Any]], seeds: Sequence[int]) -> dict[str, Any]:
    """One result from the repeats' results (the first one's, with means and the ``repeats`` block)."""
    first = dict(results[0])
    metric_maps = [dict(r.get("metrics") or {}) for r in results]
    metrics = _metric_stats(metric_maps)
    baseline = first.get("baseline")
    baseline_block: dict[str, Any] | None = None
    if isinstance(baseline, Mapping):
        name = str(baseline["name"])
        # Each repeat's baseline of the same name, on that repeat's split.
        per_run = []
        for r in results:
            named = (r.get("baselines") or {}).get(name)
            own = r.get("baseline") or {}
            per_run.append(dict(named if named is not None else own.get("metrics") or {}))
        baseline_stats = _metric_stats(per_run)
        baseline_block = {"name": name, "metrics": baseline_stats}
        first["baseline"] = {"name": name, "metrics": _means(baseline_stats)}
    else:
        per_run = [{} for _ in results]
    baselines_block: dict[str, Any] = {}
    if isinstance(first.get("baselines"), Mapping):
        for name in first["baselines"]:
            stats = _metric_stats([dict((r.get("baselines") or {}).get(name) or {}) for r in results])
            baselines_block[name] = stats
        first["baselines"] = {name: _means(stats) for name, stats in baselines_block.items()}
    first["metrics"] = _means(metrics)

    losses_block: dict[str, Any] | None = None
    if all(isinstance(r.get("losses"), Mapping) for r in results):
        train = _curve_band([r["losses"].get("train") or [] for r in results])
        test = _curve_band([r["losses"].get("test") or [] for r in results])
        if train is not None and test is not None:
            losses_block = {"train": train, "test": test}
            first["losses"] = {"train": train["mean"], "test": test["mean"]}

    verdict = first.get("baseline_verdict")
    if isinstance(verdict, Mapping) and "rmse" in metrics and baseline_block is not None:
        model_rmse = metrics["rmse"]["mean"]
        baseline_rmse = baseline_block["metrics"].get("rmse", {}).get("mean")
        if model_rmse is not None and baseline_rmse is not None:
            beats = model_rmse < baseline_rmse
            first["baseline_verdict"] = {
                "beats": beats,
                "baseline": verdict["baseline"],
                "model_rmse": model_rmse,
                "baseline_rmse": baseline_rmse,
                "sentence": (
                    f"Over {len(results)} seeds the mean test RMSE is {model_rmse:.4g}, "
                    f"{'below' if beats else 'not below'} {verdict['baseline']}'s {baseline_rmse:.4g}."
                ),
            }

    curves, matrices = _repeated_charts(first, results, seeds)
    summed = _summed_confusion(results)
    if summed is not None:
        first["confusion_matrix"] = summed
    history = _mean_history(results)
    if history is not None:
        first["output_data"] = {**first["output_data"], "training_history": history}

    first["repeats"] = {
        "count": len(results),
        "seeds": list(seeds),
        "confidence": CONFIDENCE,
        "metrics": metrics,
        "baseline": baseline_block,
        "baselines": baselines_block,
        "runs": [
            {"seed": seed, "metrics": metric_maps[i], "baseline_metrics": per_run[i]}
            for i, seed in enumerate(seeds)
        ],
        "losses": losses_block,
        "curves": curves,
        "confusion_matrices": matrices,
    }
    first["duration_seconds"] = float(sum(float(r.get("duration_seconds") or 0) for r in results))
    return first


def run_repeated(handler: Handler, params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    """Runs ``handler`` once per repeat (``ctx.extension.repeats``) and returns the one result; a job
    without repeats (or with 1) is the handler's own result, untouched."""
    count = repeat_count(ctx.extension)
    if count == 1:
        return handler(params, ctx)
    from qmlstudio_worker.jobs.support import DEFAULT_SEED

    try:
        base_seed = check_seed(ctx.extension.get("seed", DEFAULT_SEED))
    except ValueError as exc:
        raise JobValidationError(str(exc), "/extension/seed") from None
    seeds = [base_seed + i for i in range(count)]
    for seed in seeds:
        try:
            check_seed(seed)
        except ValueError as exc:
            raise JobValidationError(str(exc), "/extension/seed") from None
    ctx.emitter.log(f"Repeats: {count} runs of this configuration with seeds {seeds[0]} to {seeds[-1]}.")
    results: list[dict[str, Any]] = []
    for index, seed in enumerate(seeds):
        ctx.emitter.log(f"Repeat {index + 1} of {count}: seed {seed}")
        emitter = RepeatEmitter(ctx.emitter, index, count, seed)
        extension = {**ctx.extension, "seed": seed}
        if index == 0:
            results.append(handler(params, _context(ctx, emitter, extension, ctx.output_dir)))
            continue
        with tempfile.TemporaryDirectory(prefix="qmlstudio-repeat-") as folder:
            output_dir = Path(folder) if ctx.output_dir is not None else None
            results.append(handler(params, _context(ctx, emitter, extension, output_dir)))
    return aggregate(results, seeds)


def _context(
    ctx: JobContext, emitter: Emitter, extension: dict[str, Any], output_dir: Path | None
) -> JobContext:
    return JobContext(job_id=ctx.job_id, emitter=emitter, output_dir=output_dir, extension=extension)
