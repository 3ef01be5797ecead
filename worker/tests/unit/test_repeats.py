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
from test_job_result_contract import assert_valid, validator_for

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

    # The kept model is the first seed's: only its files are in the output folder.
    assert data["seed"] == SEEDS[0]
    assert data["confusion_matrix"] == singles[0]["confusion_matrix"]
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
