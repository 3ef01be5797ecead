"""run_job: exactly one final line (result or error) and the matching exit code."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.kinds import JobKind
from qmlstudio_worker.jobs.runner import run_job
from qmlstudio_worker.protocol import EXIT_OK, EXIT_RUNTIME_ERROR, EXIT_VALIDATION_ERROR, Emitter

Handler = Callable[[dict[str, Any], JobContext], Any]


@dataclass(frozen=True)
class InlineKind(JobKind):
    """A job kind whose handler and schema live in the test, not in a module of the package."""

    schema: dict[str, Any] = field(default_factory=dict)
    handler: Handler | None = None

    @property
    def params_schema(self) -> dict[str, Any]:
        return self.schema

    def load_handler(self) -> Handler:
        assert self.handler is not None
        return self.handler


def registry_with(handler: Handler) -> dict[str, JobKind]:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"n": {"type": "integer", "minimum": 1, "default": 3}},
    }
    kind = InlineKind("fake", "tests.fake", "fake.json", "a fake kind", schema=schema, handler=handler)
    return {"fake": kind}


def run(
    document: Any,
    handler: Handler,
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> tuple[int, list[dict[str, Any]]]:
    out = io.StringIO()
    text = document if isinstance(document, str) else json.dumps(document)
    code = run_job(text, Emitter(out), registry=registry_with(handler))
    return code, parse_protocol_lines(out.getvalue())


def fake_job(**params: Any) -> dict[str, Any]:
    return {"kind": "fake", "job_id": "j", "params": params}


def test_success_emits_the_handler_lines_then_one_result(
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> None:
    def handler(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        ctx.emitter.progress(50, "half")
        return {"n": params["n"], "job_id": ctx.job_id}

    code, lines = run(fake_job(), handler, parse_protocol_lines)
    assert code == EXIT_OK
    assert lines == [
        {"type": "progress", "percent": 50, "stage": "half"},
        {"type": "result", "data": {"n": 3, "job_id": "j"}},
    ]


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ("not json", None),
        ("", None),
        ({"kind": "nope", "job_id": "j", "params": {}}, "/kind"),
        (fake_job(n=0), "/params/n"),
        ({"kind": "fake", "params": {}}, "/job_id"),
    ],
)
def test_invalid_jobs_end_with_a_validation_error_and_exit_2(
    document: Any, field: str | None, parse_protocol_lines: Callable[[str], list[dict[str, Any]]]
) -> None:
    def handler(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        raise AssertionError("the handler must not run for an invalid job")

    code, lines = run(document, handler, parse_protocol_lines)
    assert code == EXIT_VALIDATION_ERROR
    assert len(lines) == 1
    assert lines[0]["type"] == "error"
    assert lines[0]["kind"] == "validation"
    assert lines[0].get("field") == field


def test_handler_validation_error_is_a_validation_error(
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> None:
    def handler(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        raise JobValidationError("/params/n: must be even", "/params/n")

    code, lines = run(fake_job(n=3), handler, parse_protocol_lines)
    assert code == EXIT_VALIDATION_ERROR
    assert lines == [
        {"type": "error", "message": "/params/n: must be even", "kind": "validation", "field": "/params/n"}
    ]


def test_handler_crash_is_a_runtime_error_with_traceback_on_stderr(
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    def handler(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        ctx.emitter.log("about to fail")
        raise RuntimeError("simulator exploded")

    code, lines = run(fake_job(), handler, parse_protocol_lines)
    assert code == EXIT_RUNTIME_ERROR
    assert lines[-1] == {"type": "error", "message": "RuntimeError: simulator exploded", "kind": "runtime"}
    assert [line["type"] for line in lines] == ["log", "error"]
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize("bad_result", [None, [1, 2], {"loss": float("nan")}])
def test_a_bad_result_is_a_runtime_error(
    bad_result: Any, parse_protocol_lines: Callable[[str], list[dict[str, Any]]]
) -> None:
    code, lines = run(fake_job(), lambda params, ctx: bad_result, parse_protocol_lines)
    assert code == EXIT_RUNTIME_ERROR
    assert [line["type"] for line in lines] == ["error"]
    assert lines[0]["kind"] == "runtime"
