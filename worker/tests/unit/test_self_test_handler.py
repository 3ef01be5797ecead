"""The self-test handler run in-process (the subprocess path is covered by the integration tests)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qmlstudio_worker.jobs import self_test
from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.protocol import Emitter


def run_self_test(params: dict[str, Any], output_dir: Path | None = None) -> tuple[dict[str, Any], str]:
    out = io.StringIO()
    data = self_test.run(
        {"shots": 1024, "seed": None, "delay_seconds": 0, **params},
        JobContext(job_id="t", emitter=Emitter(out), output_dir=output_dir),
    )
    return data, out.getvalue()


def test_bell_counts_chart_metrics_and_versions(
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]], tmp_path: Path
) -> None:
    data, text = run_self_test({"shots": 256, "seed": 11}, output_dir=tmp_path / "out")
    lines = parse_protocol_lines(text)

    assert set(data["counts"]) <= {"00", "11"}
    assert sum(data["counts"].values()) == 256
    assert data["backend"] == "aer_simulator"
    assert data["shots"] == 256
    assert data["seed"] == 11
    assert {"qiskit", "qiskit_aer", "torch", "python"} <= set(data["versions"])

    percents = [line["percent"] for line in lines if line["type"] == "progress"]
    assert percents == sorted(percents)
    assert percents[0] == 5
    assert percents[-1] == 100

    (chart,) = [line["chart"] for line in lines if line["type"] == "chart"]
    assert chart["type"] == "bar"
    assert chart["categories"] == ["00", "01", "10", "11"]
    assert chart["series"][0]["data"] == [data["counts"].get(k, 0) for k in ("00", "01", "10", "11")]

    metrics = {line["name"]: line["value"] for line in lines if line["type"] == "metric"}
    assert metrics["bell_correlation"] == 1.0

    (artifact,) = [line for line in lines if line["type"] == "artifact"]
    assert artifact["media_type"] == "application/json"
    assert json.loads(Path(artifact["path"]).read_text())["counts"] == data["counts"]


def test_same_seed_gives_same_counts() -> None:
    first, _ = run_self_test({"shots": 500, "seed": 1234})
    second, _ = run_self_test({"shots": 500, "seed": 1234})
    assert first["counts"] == second["counts"]


def test_delay_is_reported_as_progress_steps(
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> None:
    _, text = run_self_test({"shots": 8, "delay_seconds": 0.3})
    stages = [line["stage"] for line in parse_protocol_lines(text) if line["type"] == "progress"]
    assert stages[:2] == ["starting", "waiting (1/1)"]
