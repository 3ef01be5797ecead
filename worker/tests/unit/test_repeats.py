"""Repeated seeds through runner.run_job: extension.repeats runs the body with consecutive seeds as one
output whose statistics are those of the single-seed runs, with each baseline on the same split."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats  # type: ignore[import-untyped]
from test_handlers_financial import Lines, classical_body, refusal, result_of, run
from test_job_result_contract import assert_valid, brain_run, tiny_mat, validator_for

from qmlstudio_worker.jobs.repeats import summarize

SEEDS = [7, 8, 9]


@pytest.fixture(scope="module")
def fraud_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every fraud row of the synthetic sample and 600 others: small enough for three fits in seconds."""
    import pandas as pd
    from test_handlers_financial import SAMPLES

    frame = pd.read_csv(SAMPLES / "credit_card_fraud_synthetic.csv")
    small = pd.concat([frame[frame["Class"] == 1], frame[frame["Class"] == 0].head(600)]).sort_index()
    path = tmp_path_factory.mktemp("repeats") / "fraud.csv"
    small.to_csv(path, index=False)
    return path


def fraud_run(csv: Path, out: Path | None, parse: Callable[[str], Lines], **ext: Any) -> tuple[int, Lines]:
    body = classical_body("fraud-detection", model="Random Forest", test_ratio=0.3)
    return run("fraud-detection", body, csv, out, parse, target_column="Class", **ext)


def test_three_repeats_report_the_statistics_of_the_three_single_seed_runs(
    fraud_csv: Path, tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    singles = []
    for seed in SEEDS:
        code, lines = fraud_run(fraud_csv, tmp_path / f"single-{seed}", parse_protocol_lines, seed=seed)
        singles.append(result_of(code, lines))
    code, lines = fraud_run(fraud_csv, tmp_path / "repeated", parse_protocol_lines, seed=SEEDS[0], repeats=3)
    data = result_of(code, lines)
    assert_valid(validator_for("trainingResult"), data)

    block = data["repeats"]
    assert block["count"] == 3
    assert block["seeds"] == SEEDS
    # The log names each seed as it starts; progress never goes back.
    logs = [line["message"] for line in lines if line["type"] == "log"]
    for i, seed in enumerate(SEEDS):
        assert f"Repeat {i + 1} of 3: seed {seed}" in logs
    percents = [line["percent"] for line in lines if line["type"] == "progress"]
    assert percents == sorted(percents)
    assert percents[-1] == 100

    # Different seeds give different metrics here (the split and the forest follow the seed).
    assert any(len({str(s["metrics"][name]) for s in singles}) > 1 for name in singles[0]["metrics"])
    t = stats.t.ppf(0.975, 2)
    for name, stat in block["metrics"].items():
        values = [s["metrics"][name] for s in singles]
        assert stat["values"] == pytest.approx(values)
        if any(v is None for v in values):
            continue
        mean, sd = float(np.mean(values)), float(np.std(values, ddof=1))
        assert stat["mean"] == pytest.approx(mean)
        assert data["metrics"][name] == pytest.approx(mean)
        assert stat["sd"] == pytest.approx(sd)
        assert stat["ci_low"] == pytest.approx(mean - t * sd / math.sqrt(3))
        assert stat["ci_high"] == pytest.approx(mean + t * sd / math.sqrt(3))

    # Each repeat's baseline is the single run's baseline for that seed: the same split as its model.
    name = singles[0]["baseline"]["name"]
    assert block["baseline"]["name"] == name == data["baseline"]["name"]
    for run_entry, single in zip(block["runs"], singles, strict=True):
        assert run_entry["metrics"] == pytest.approx(single["metrics"])
        assert run_entry["baseline_metrics"] == pytest.approx(single["baseline"]["metrics"])
    for metric, stat in block["baseline"]["metrics"].items():
        values = [s["baseline"]["metrics"][metric] for s in singles]
        if None not in values:
            assert stat["mean"] == pytest.approx(np.mean(values))
            assert data["baseline"]["metrics"][metric] == pytest.approx(np.mean(values))

    # The kept model is the first seed's: only its files are in the output folder. The confusion
    # matrix holds every seed's test predictions.
    assert data["seed"] == SEEDS[0]
    assert data["confusion_matrix"] == np.sum([s["confusion_matrix"] for s in singles], axis=0).tolist()
    assert (tmp_path / "repeated" / data["trained_model_path"]).is_file()


def test_one_repeat_is_the_plain_run_and_eleven_is_refused_naming_the_field(
    fraud_csv: Path, tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    code, lines = fraud_run(fraud_csv, tmp_path / "once", parse_protocol_lines, seed=7, repeats=1)
    assert "repeats" not in result_of(code, lines)
    code, lines = fraud_run(fraud_csv, tmp_path / "eleven", parse_protocol_lines, seed=7, repeats=11)
    assert refusal(code, lines)["field"].endswith("/extension/repeats")


def test_summarize_leaves_out_missing_values_and_gives_no_interval_for_one_number() -> None:
    assert summarize([2.0, None, 4.0])["mean"] == 3.0
    assert summarize([2.0, None, 4.0])["n"] == 2
    one = summarize([5.0])
    assert (one["mean"], one["sd"], one["ci_low"]) == (5.0, None, None)


def _line(title: str, series: dict[str, list[float | None]], categories: list[Any]) -> dict[str, Any]:
    return {
        "type": "line",
        "title": title,
        "label": "y",
        "series": [{"name": n, "data": d} for n, d in series.items()],
        "categories": categories,
    }


def _result(charts: list[dict[str, Any]], metric: float) -> dict[str, Any]:
    return {
        "problem": "p",
        "model": "m",
        "model_type": "Classical",
        "metrics": {"m": metric},
        "charts": charts,
    }


def test_per_step_curves_keep_every_seeds_series_and_draw_their_mean() -> None:
    from qmlstudio_worker.jobs.repeats import aggregate

    roc = {
        "type": "line",
        "title": "ROC",
        "label": "tpr",
        "series": [{"name": "m", "data": [[0, 0], [1, 1]]}],
    }
    roc["categories"] = []
    matrix = {
        "type": "confusion_matrix",
        "title": "Confusion Matrix",
        "label": "rows",
        "series": [{"name": "true a", "data": [3, 1]}, {"name": "true b", "data": [0, 4]}],
        "categories": ["a", "b"],
    }
    matrix2 = {**matrix, "series": [{"name": "true a", "data": [2, 2]}, {"name": "true b", "data": [1, 3]}]}
    results = [
        # COBYLA-like traces of different lengths: the band covers the steps every seed reached.
        _result([_line("trace per step", {"energy": [3.0, 2.0, 1.0]}, [1, 2, 3]), roc, matrix], 1.0),
        _result([_line("trace per step", {"energy": [5.0, 2.0]}, [1, 2]), roc, matrix2], 2.0),
    ]
    results[0]["charts"].append(
        _line("forecast", {"actual": [1.0, 2.0], "predicted": [1.5, 2.5]}, ["d1", "d2"])
    )
    results[1]["charts"].append(
        _line("forecast", {"actual": [1.0, 2.0], "predicted": [0.5, 2.5]}, ["d1", "d2"])
    )
    data = aggregate(results, [42, 43])
    curves = {c["title"]: c for c in data["repeats"]["curves"]}
    assert set(curves) == {"trace per step", "forecast"}  # the ROC points are not a per-step curve
    (energy,) = curves["trace per step"]["series"]
    assert energy["runs"] == [[3.0, 2.0, 1.0], [5.0, 2.0]]
    assert energy["mean"] == [4.0, 2.0]
    assert energy["sd"] == pytest.approx([math.sqrt(2), 0.0])
    trace = next(c for c in data["charts"] if c["title"] == "trace per step")
    assert trace["series"][0]["data"] == [4.0, 2.0]
    assert trace["categories"] == [1, 2]
    # The actual values are the same for both seeds: no band, drawn as they are.
    assert [s["name"] for s in curves["forecast"]["series"]] == ["predicted"]
    forecast = next(c for c in data["charts"] if c["title"] == "forecast")
    assert forecast["series"] == [
        {"name": "actual", "data": [1.0, 2.0]},
        {"name": "predicted", "data": [1.0, 2.5]},
    ]
    # The confusion matrix is the sum over the seeds, titled so; each seed's is kept.
    summed = next(c for c in data["charts"] if c["type"] == "confusion_matrix")
    assert summed["title"] == "Confusion Matrix (summed over 2 seeds, 42 to 43)"
    assert [s["data"] for s in summed["series"]] == [[5, 3], [1, 7]]
    (kept,) = data["repeats"]["confusion_matrices"]
    assert kept["title"] == summed["title"]
    assert [r["matrix"] for r in kept["runs"]] == [[[3, 1], [0, 4]], [[2, 2], [1, 3]]]
    assert [r["seed"] for r in kept["runs"]] == [42, 43]


def test_a_repeated_brain_tumor_training_records_every_seeds_history_and_sums_the_confusion_matrix(
    tmp_path: Path,
) -> None:
    mat = tiny_mat(tmp_path)
    singles = [brain_run("FCN", mat, tmp_path / f"single-{seed}", 3, seed=seed) for seed in (42, 43)]
    data = brain_run("FCN", mat, tmp_path / "repeated", 3, repeats=2)
    assert_valid(validator_for("trainingResult"), data)
    curves = {c["title"]: {s["name"]: s for s in c["series"]} for c in data["repeats"]["curves"]}
    charts = {c["title"]: c for c in data["charts"]}
    for title in ("Loss over Epochs", "Accuracy vs Validation Accuracy"):
        single_charts = [{c["title"]: c for c in s["charts"]}[title] for s in singles]
        for index, series in enumerate(single_charts[0]["series"]):
            runs = [chart["series"][index]["data"] for chart in single_charts]
            if runs[0] == runs[1]:
                continue  # the same for both seeds: drawn as it is
            recorded = curves[title][series["name"]]
            assert recorded["runs"] == runs
            assert recorded["mean"] == pytest.approx(np.mean(runs, axis=0))
            assert recorded["sd"] == pytest.approx(np.std(runs, axis=0, ddof=1))
            assert charts[title]["series"][index]["data"] == pytest.approx(np.mean(runs, axis=0))
    # The seeds train differently, so at least the training loss has a band.
    assert "Training loss" in curves["Loss over Epochs"]
    history = data["output_data"]["training_history"]
    assert history["accuracy"] == pytest.approx(
        np.mean([s["output_data"]["training_history"]["accuracy"] for s in singles], axis=0)
    )
    matrix = next(c for c in data["charts"] if c["type"] == "confusion_matrix")
    assert matrix["title"] == "Confusion Matrix (summed over 2 seeds, 42 to 43)"
    assert (
        data["confusion_matrix"]
        == (np.asarray(singles[0]["confusion_matrix"]) + np.asarray(singles[1]["confusion_matrix"])).tolist()
    )
    (per_seed,) = data["repeats"]["confusion_matrices"]
    assert [r["matrix"] for r in per_seed["runs"]] == [s["confusion_matrix"] for s in singles]
