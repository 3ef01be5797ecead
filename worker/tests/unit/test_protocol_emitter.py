"""The Emitter writes one flushed, schema-valid JSON object per line and refuses malformed lines."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from qmlstudio_worker.protocol import Emitter, encode_line


class FlushCountingStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0
        self.flushed_text: list[str] = []

    def flush(self) -> None:
        self.flushes += 1
        self.flushed_text.append(self.getvalue())
        super().flush()


@pytest.fixture
def stream() -> FlushCountingStream:
    return FlushCountingStream()


@pytest.fixture
def emitter(stream: FlushCountingStream) -> Emitter:
    return Emitter(stream)


def emit_one_of_each(emitter: Emitter) -> None:
    emitter.progress(5, "starting")
    emitter.log("hello", level="warning")
    emitter.metric("loss", 0.25, step=3)
    emitter.metric("accuracy", 1)
    emitter.chart("bar", "Counts", [{"name": "counts", "data": [1, 0, 0, 1]}], ["00", "01", "10", "11"], "n")
    emitter.chart("confusion_matrix", "Confusion", [{"name": "a", "data": [1, 2]}], ["a", "b"])
    emitter.artifact("model.pt", "/tmp/model.pt", "application/octet-stream")
    emitter.result({"ok": True})


def test_every_helper_writes_a_schema_valid_line(
    emitter: Emitter,
    stream: FlushCountingStream,
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> None:
    emit_one_of_each(emitter)
    lines = parse_protocol_lines(stream.getvalue())
    assert [line["type"] for line in lines] == [
        "progress",
        "log",
        "metric",
        "metric",
        "chart",
        "chart",
        "artifact",
        "result",
    ]
    assert lines[3] == {"type": "metric", "name": "accuracy", "value": 1, "step": None}
    assert lines[5]["chart"]["label"] == ""
    assert emitter.finished


def test_each_line_is_flushed_as_soon_as_it_is_written(emitter: Emitter, stream: FlushCountingStream) -> None:
    emitter.progress(1, "a")
    emitter.log("b")
    assert stream.flushes == 2
    assert stream.flushed_text[0].count("\n") == 1
    assert stream.flushed_text[1].count("\n") == 2


def test_error_line_names_kind_and_field(
    emitter: Emitter,
    stream: FlushCountingStream,
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> None:
    emitter.error("/params/shots: too small", kind="validation", field="/params/shots")
    emitter.error("boom")
    first, second = parse_protocol_lines(stream.getvalue())
    assert first == {
        "type": "error",
        "message": "/params/shots: too small",
        "kind": "validation",
        "field": "/params/shots",
    }
    assert second == {"type": "error", "message": "boom", "kind": "runtime"}


def test_numpy_values_are_written_as_plain_json(emitter: Emitter, stream: FlushCountingStream) -> None:
    emitter.metric("mse", np.float32(0.5), step=np.int64(2))
    emitter.result({"weights": np.arange(3), "count": np.int64(7)})
    metric, result = (json.loads(line) for line in stream.getvalue().splitlines())
    assert metric == {"type": "metric", "name": "mse", "value": 0.5, "step": 2}
    assert result["data"] == {"weights": [0, 1, 2], "count": 7}


def test_non_ascii_text_stays_on_one_line(emitter: Emitter, stream: FlushCountingStream) -> None:
    emitter.log("first\nseconde é ψ")
    assert stream.getvalue().count("\n") == 1
    assert json.loads(stream.getvalue())["message"] == "first\nseconde é ψ"


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda e: e.progress(101, "x"), ValueError),
        (lambda e: e.progress(-0.1, "x"), ValueError),
        (lambda e: e.progress(math.nan, "x"), ValueError),
        (lambda e: e.log("x", level="debug"), ValueError),
        (lambda e: e.metric("loss", math.inf), ValueError),
        (lambda e: e.metric("loss", np.float64("nan")), ValueError),
        (lambda e: e.metric("loss", "0.1"), TypeError),
        (lambda e: e.metric("loss", True), TypeError),
        (lambda e: e.metric("loss", 0.1, step=-1), ValueError),
        (lambda e: e.chart("pie", "t", []), ValueError),
        (lambda e: e.result([1, 2]), TypeError),
        (lambda e: e.result({"x": math.nan}), ValueError),
        (lambda e: e.error("x", kind="fatal"), ValueError),
    ],
)
def test_malformed_lines_are_refused_and_nothing_is_written(
    emitter: Emitter, stream: FlushCountingStream, call: Callable[[Emitter], None], error: type[Exception]
) -> None:
    with pytest.raises(error):
        call(emitter)
    assert stream.getvalue() == ""


def test_encode_line_is_compact_and_newline_terminated() -> None:
    assert encode_line({"type": "progress", "percent": 5, "stage": "s"}) == (
        '{"type":"progress","percent":5,"stage":"s"}\n'
    )
