"""`python -m qmlstudio_worker serve`: the preloaded parent forks a child per request on a Unix socket."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import WarmWorker

from qmlstudio_worker.serve import BadRequest, _exit_info, parse_request

pytestmark = pytest.mark.integration

# The parent is the session's warm worker (conftest.py): started once, shared with the tests that run a
# command in a process of its own (predict, estimate, infer, forecast, mat-inspect); these tests check the
# serve protocol on it.


@pytest.fixture
def parent(warm_worker: WarmWorker) -> WarmWorker:
    return warm_worker


def read_all(conn: socket.socket) -> list[str]:
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    conn.close()
    return data.decode("utf-8").split("\n")


def read_line(conn: socket.socket) -> str:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(1)
        assert chunk, "connection closed"
        data += chunk
    return data.decode("utf-8")


def self_test_request(tmp_path: Path, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "command": "run",
        "args": [],
        "input": {"kind": "self-test", "job_id": "serve-1", "params": params, "output_dir": str(tmp_path)},
        "stderr_path": str(tmp_path / "stderr.log"),
    }


def test_ready_line_lists_the_preloaded_libraries(parent: WarmWorker) -> None:
    ready = parent.ready
    assert ready["serve"] == "ready"
    assert ready["pid"] == parent.process.pid
    for module in (
        "numpy",
        "pandas",
        "sklearn",
        "torch",
        "qiskit",
        "qiskit_aer",
        "qmlstudio_worker.problems",
    ):
        assert module in ready["preloaded"], ready["skipped"].get(module)


def test_runs_a_job_in_a_forked_child_and_reports_pid_and_exit(
    parent: WarmWorker, tmp_path: Path, parse_protocol_lines: Callable[[str], list[dict[str, Any]]]
) -> None:
    conn = parent.connect(self_test_request(tmp_path, {"shots": 64, "seed": 3}))
    lines = read_all(conn)
    first = json.loads(lines[0])
    pid = first["qmlstudio_serve"]["pid"]
    assert pid != parent.process.pid
    # Last: an empty line (ends any unfinished child line), the exit line, then the final newline.
    assert lines[-1] == ""
    assert json.loads(lines[-2]) == {"qmlstudio_serve": {"exit": {"code": 0, "signal": None}}}
    assert lines[-3] == ""
    protocol = parse_protocol_lines("\n".join(lines[1:-3]) + "\n")  # exactly what `run` prints
    assert protocol[-1]["type"] == "result"
    assert sum(protocol[-1]["data"]["counts"].values()) == 64
    assert (tmp_path / "stderr.log").exists()
    assert parent.process.poll() is None


def test_child_has_its_own_process_group_and_a_signal_ends_it(parent: WarmWorker, tmp_path: Path) -> None:
    conn = parent.connect(self_test_request(tmp_path, {"delay_seconds": 60}))
    pid = json.loads(read_line(conn))["qmlstudio_serve"]["pid"]
    assert os.getpgid(pid) == pid  # setsid() happened before the pid was sent
    assert json.loads(read_line(conn))["type"] == "progress"
    os.killpg(pid, signal.SIGTERM)
    lines = [line for line in read_all(conn) if line]
    assert json.loads(lines[-1]) == {"qmlstudio_serve": {"exit": {"code": None, "signal": "SIGTERM"}}}
    assert parent.process.poll() is None


def test_refuses_a_malformed_request(parent: WarmWorker) -> None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(30)
    conn.connect(str(parent.socket_path))
    conn.sendall(b'{"command": "rm -rf"}\n')
    lines = [line for line in read_all(conn) if line]
    assert len(lines) == 1
    error = json.loads(lines[0])["qmlstudio_serve"]["error"]
    assert error == (
        "command must be one of run, infer, forecast, estimate, devices, predict, mat-inspect (got 'rm -rf')"
    )


def test_parse_request_builds_the_cli_arguments() -> None:
    request = parse_request(
        b'{"command": "run", "args": ["--schemas-dir", "/s"], "input": {"a": 1}, "stderr_path": "/e"}'
    )
    assert request.argv == ["run", "--schemas-dir", "/s"]
    assert json.loads(request.stdin_text) == {"a": 1}
    assert request.stderr_path == "/e"
    assert request.env is None
    assert parse_request(b'{"command": "run", "env": {"DATA_DIR": "/d"}}').env == {"DATA_DIR": "/d"}
    for bad in (
        b"not json",
        b"[]",
        b'{"command": "serve"}',
        b'{"command": "run", "args": [1]}',
        b'{"command": "run", "env": ["DATA_DIR"]}',
        b'{"command": "run", "env": {"DATA_DIR": 1}}',
    ):
        with pytest.raises(BadRequest):
            parse_request(bad)


def test_a_request_with_an_environment_runs_its_child_with_it_and_its_file_store(
    parent: WarmWorker, tmp_path: Path, parse_protocol_lines: Callable[[str], list[dict[str, Any]]]
) -> None:
    # Settings the parent's own store never had: the child must build its store from them (a job with an
    # output folder publishes it through the store) instead of using the one the parent built.
    env = {**os.environ, "STORAGE_BACKEND": "bogus"}
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
    conn = parent.connect({**self_test_request(tmp_path / "one", {"shots": 16}), "env": env})
    lines = [line for line in read_all(conn) if line]
    assert json.loads(lines[-1]) == {"qmlstudio_serve": {"exit": {"code": 1, "signal": None}}}
    error = parse_protocol_lines("\n".join(lines[1:-1]) + "\n")[-1]
    assert error["type"] == "error"
    assert "STORAGE_BACKEND must be local or s3 (got 'bogus')" in error["message"]
    # The parent keeps its own environment: the next request without one completes.
    conn = parent.connect(self_test_request(tmp_path / "two", {"shots": 16}))
    lines = [line for line in read_all(conn) if line]
    assert json.loads(lines[-1]) == {"qmlstudio_serve": {"exit": {"code": 0, "signal": None}}}


def test_exit_info_names_the_signal() -> None:
    assert _exit_info(0) == {"code": 0, "signal": None}
    assert _exit_info(2 << 8) == {"code": 2, "signal": None}
    assert _exit_info(signal.SIGKILL) == {"code": None, "signal": "SIGKILL"}


@pytest.mark.ends_warm_worker
def test_parent_ends_when_its_input_closes(parent: WarmWorker) -> None:
    # Last in the session (conftest.py sorts it there): the server that started the parent going away ends it.
    assert parent.process.stdin is not None
    parent.process.stdin.close()
    deadline = time.monotonic() + 30
    while parent.process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert parent.process.returncode == 0
    assert not parent.socket_path.exists()
