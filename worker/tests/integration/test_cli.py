"""`python -m qmlstudio_worker` as the server runs it: a subprocess, a job on stdin, lines on stdout."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import WarmWorker

pytestmark = pytest.mark.integration

TIMEOUT_SECONDS = 60


def worker_command(command: str) -> list[str]:
    return [sys.executable, "-m", "qmlstudio_worker", command]


def run_worker(command: str, stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        worker_command(command),
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )


SEEDED_SELF_TEST = {"kind": "self-test", "job_id": "it-1", "params": {"shots": 1024, "seed": 99}}


@pytest.fixture(scope="module")
def cold_self_test(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One seeded self-test job through a fresh ``python -m qmlstudio_worker run`` (a relative output
    directory, under the process's working directory): the run both tests below look at."""
    cwd = tmp_path_factory.mktemp("cold-run")
    job = {**SEEDED_SELF_TEST, "output_dir": "outputs/it-1"}
    return cwd, run_worker("run", json.dumps(job), cwd)


def test_self_test_job_reports_bell_counts(
    cold_self_test: tuple[Path, subprocess.CompletedProcess[str]],
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> None:
    tmp_path, completed = cold_self_test

    assert completed.returncode == 0, completed.stderr
    lines = parse_protocol_lines(completed.stdout)  # every line is JSON and valid against the schema
    types = [line["type"] for line in lines]
    assert types[-1] == "result"
    assert types.count("result") == 1
    assert "error" not in types
    assert {"progress", "log", "metric", "chart", "artifact"} <= set(types)

    data = lines[-1]["data"]
    counts = data["counts"]
    assert sum(counts.values()) == 1024
    assert set(counts) <= {"00", "11"}
    for outcome in ("00", "11"):
        assert 400 <= counts.get(outcome, 0) <= 624, counts
    assert data["shots"] == 1024
    assert data["backend"] == "aer_simulator"
    assert set(data["versions"]) >= {"qiskit", "qiskit_aer", "torch", "python"}
    assert data["versions"]["torch"].startswith("2.13.0")

    stages = [(line["percent"], line["stage"]) for line in lines if line["type"] == "progress"]
    assert stages[0] == (5, "starting")
    assert stages[-1] == (100, "done")
    assert [percent for percent, _ in stages] == sorted(percent for percent, _ in stages)

    (chart,) = [line["chart"] for line in lines if line["type"] == "chart"]
    assert chart["categories"] == ["00", "01", "10", "11"]

    (artifact,) = [line for line in lines if line["type"] == "artifact"]
    assert (tmp_path / artifact["path"]).is_file()


def test_seeded_runs_are_reproducible(
    cold_self_test: tuple[Path, subprocess.CompletedProcess[str]],
    tmp_path: Path,
    warm_worker: WarmWorker,
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> None:
    """The same seed gives the same counts in a fresh process (the cold run above) and in a child forked
    from the warm parent (whose libraries were imported, and random generators drawn from, before the job);
    another seed gives other counts."""
    _cwd, first = cold_self_test
    second = warm_worker.command("run", {**SEEDED_SELF_TEST, "output_dir": str(tmp_path / "warm")})
    other_job = {**SEEDED_SELF_TEST, "params": {"shots": 1024, "seed": 100}, "output_dir": str(tmp_path)}
    other = warm_worker.command("run", other_job)
    assert first.returncode == second.returncode == other.returncode == 0
    counts = [parse_protocol_lines(done.stdout)[-1]["data"]["counts"] for done in (first, second, other)]
    assert counts[0] == counts[1]
    assert counts[2] != counts[0]
    assert sum(counts[0].values()) == 1024


def _assert_one_validation_error(
    returncode: int, stdout: str, field: str | None, parse: Callable[[str], list[dict[str, Any]]]
) -> None:
    assert returncode == 2
    (line,) = parse(stdout)
    assert line["type"] == "error"
    assert line["kind"] == "validation"
    assert line.get("field") == field
    if field:
        assert field in line["message"]


@pytest.mark.parametrize(("stdin", "field"), [("this is not json", None), ("", None)])
def test_invalid_job_gives_one_validation_error_line_and_exit_2(
    tmp_path: Path, stdin: str, field: str | None, parse_protocol_lines: Callable[[str], list[dict[str, Any]]]
) -> None:
    completed = run_worker("run", stdin, tmp_path)
    assert completed.returncode == 2, completed.stderr
    _assert_one_validation_error(completed.returncode, completed.stdout, field, parse_protocol_lines)


@pytest.mark.parametrize(
    ("job", "field"),
    [
        ({"kind": "self-test", "job_id": "x", "params": {"shots": 0}}, "/params/shots"),
        ({"kind": "teleport", "job_id": "x", "params": {}}, "/kind"),
        ({"kind": "self-test", "params": {}}, "/job_id"),
    ],
)
def test_a_job_breaking_the_envelope_gives_one_validation_error_line_and_exit_2(
    warm_worker: WarmWorker,
    job: dict[str, Any],
    field: str,
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> None:
    """Valid JSON, an invalid job: ``run`` in a child of the warm parent (the same ``cli.main`` as the cold
    command above, without a fresh interpreter's imports)."""
    completed = warm_worker.command("run", job)
    assert completed.returncode == 2, completed.stderr
    _assert_one_validation_error(completed.returncode, completed.stdout, field, parse_protocol_lines)


def test_sigterm_stops_a_running_job_promptly(tmp_path: Path, protocol_validator: Any) -> None:
    job = {"kind": "self-test", "job_id": "it-stop", "params": {"delay_seconds": 60}}
    process = subprocess.Popen(
        worker_command("run"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(json.dumps(job))
        process.stdin.close()
        deadline = time.monotonic() + 30
        seen: list[dict[str, Any]] = []
        while not any(line.get("stage", "").startswith("waiting") for line in seen):
            assert time.monotonic() < deadline, f"no waiting progress line; saw {seen}"
            ready, _, _ = select.select([process.stdout], [], [], 1)
            if ready:
                raw = process.stdout.readline()
                assert raw, "stdout closed before the job started waiting"
                seen.append(json.loads(raw))
        stopped_at = time.monotonic()
        process.send_signal(signal.SIGTERM)
        returncode = process.wait(timeout=5)
        assert time.monotonic() - stopped_at < 5
        assert returncode in (-signal.SIGTERM, 128 + signal.SIGTERM)
        rest = process.stdout.read()
        seen.extend(json.loads(raw) for raw in rest.splitlines())
        assert all(protocol_validator.is_valid(line) for line in seen)
        assert not any(line["type"] in ("result", "error") for line in seen)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_library_output_on_stdout_is_moved_to_stderr(tmp_path: Path) -> None:
    """Anything written to fd 1 or sys.stdout after start-up lands on stderr, not in the protocol."""
    code = (
        "import os, sys\n"
        "from qmlstudio_worker import cli\n"
        "out = cli.claim_stdout()\n"
        "print('python print')\n"
        "os.write(1, b'native write\\n')\n"
        'out.write(\'{"type":"log","level":"info","message":"protocol"}\\n\')\n'
        "out.flush()\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=30, check=True
    )
    assert completed.stdout == '{"type":"log","level":"info","message":"protocol"}\n'
    assert "python print" in completed.stderr
    assert "native write" in completed.stderr


def test_health_reports_library_versions(tmp_path: Path) -> None:
    completed = run_worker("health", "", tmp_path)
    assert completed.returncode == 0, completed.stderr
    (raw,) = completed.stdout.splitlines()
    report = json.loads(raw)
    assert report["ok"] is True
    versions = report["versions"]
    assert set(versions) >= {"qiskit", "qiskit_aer", "torch", "python"}
    assert versions["torch"].startswith("2.13.0")


def test_health_reports_a_missing_library(tmp_path: Path) -> None:
    # A directory named torch without an importable module makes `import torch` fail in the child.
    blocker = tmp_path / "blocker"
    (blocker / "torch").mkdir(parents=True)
    (blocker / "torch" / "__init__.py").write_text("raise ImportError('torch is broken here')\n")
    env = {**os.environ, "PYTHONPATH": str(blocker)}
    completed = subprocess.run(
        worker_command("health"),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 1
    (raw,) = completed.stdout.splitlines()
    assert json.loads(raw) == {"ok": False, "error": "ImportError: torch is broken here"}


def test_kinds_lists_self_test_with_its_params_schema(tmp_path: Path) -> None:
    completed = run_worker("kinds", "", tmp_path)
    assert completed.returncode == 0, completed.stderr
    kinds = json.loads(completed.stdout)["kinds"]
    assert kinds["self-test"]["params_schema"]["properties"]["shots"]["default"] == 1024


def test_run_validates_a_problem_body_against_the_schemas_dir_it_is_given(
    tmp_path: Path, parse_protocol_lines: Callable[[str], list[dict[str, Any]]]
) -> None:
    """As the server runs it (`run --schemas-dir DIR`): the problem file in DIR decides, not a copy."""
    repo = Path(__file__).resolve().parents[3]
    schemas = tmp_path / "schemas"
    shutil.copytree(repo / "schemas", schemas)
    problem_path = schemas / "problems" / "stock-price-prediction.json"
    problem = json.loads(problem_path.read_text(encoding="utf-8"))
    problem["job"]["bodySchema"]["properties"]["epochs"] = {"type": "integer", "maximum": 7}
    problem_path.write_text(json.dumps(problem), encoding="utf-8")
    fixture = repo / "src" / "generated" / "fixtures" / "stock-price-prediction.job-requests.json"
    body = json.loads(fixture.read_text(encoding="utf-8"))["requests"][0]["body"]
    job = json.dumps({"kind": "stock-price-prediction", "job_id": "it-p", "params": {**body, "epochs": 8}})

    completed = subprocess.run(
        [*worker_command("run"), "--schemas-dir", str(schemas)],
        input=job,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    (line,) = parse_protocol_lines(completed.stdout)
    assert line["field"] == "/params/epochs"
    assert line["message"] == "/params/epochs: 8 is greater than the maximum of 7"
