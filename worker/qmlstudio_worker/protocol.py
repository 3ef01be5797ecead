"""The worker protocol: one JSON object per line on stdout, flushed immediately.

Line types (field ``type``), as pinned by ``schemas/worker-protocol.schema.json`` (the server validates
every line it reads against the same file):

- ``progress``  {"type": "progress", "percent": 0..100, "stage": str}
- ``log``       {"type": "log", "level": "info"|"warning"|"error", "message": str}
- ``metric``    {"type": "metric", "name": str, "value": number, "step": int|null}
- ``chart``     {"type": "chart", "chart": {"type": "line"|"bar"|"heatmap"|"confusion_matrix",
                 "title": str, "label": str, "series": [{"name": str, "data": [...]}], "categories": [...]}}
- ``artifact``  {"type": "artifact", "name": str, "path": str, "media_type": str}
- ``result``    {"type": "result", "data": {...}}            (last line of a successful job, exit code 0)
- ``error``     {"type": "error", "message": str, "kind": "validation"|"runtime", "field"?: JSON pointer}
                                                             (last line of a failed job, exit code != 0)
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TextIO

LogLevel = Literal["info", "warning", "error"]
ChartType = Literal["line", "bar", "heatmap", "confusion_matrix"]
ErrorKind = Literal["validation", "runtime"]

LOG_LEVELS: tuple[str, ...] = ("info", "warning", "error")
#: Phases of a quantum run (progress lines' optional ``phase``; the server's status timeline shows them).
Phase = Literal["preparing", "executing", "post-processing"]
PHASES: tuple[str, ...] = ("preparing", "executing", "post-processing")
CHART_TYPES: tuple[str, ...] = ("line", "bar", "heatmap", "confusion_matrix")
ERROR_KINDS: tuple[str, ...] = ("validation", "runtime")

# Exit codes of `python -m qmlstudio_worker run`.
EXIT_OK = 0
EXIT_RUNTIME_ERROR = 1
EXIT_VALIDATION_ERROR = 2


def _to_json_compatible(value: Any) -> Any:
    """json.dumps fallback: numpy scalars and arrays (anything with .tolist()/.item()) become plain JSON."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def encode_line(line: Mapping[str, Any]) -> str:
    """One protocol line as compact JSON text with a trailing newline.

    NaN and infinities are refused (they are not JSON): a ValueError is raised instead.
    """
    text = json.dumps(
        line, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=_to_json_compatible
    )
    return text + "\n"


def _require_finite(name: str, value: Any) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        if hasattr(value, "item"):  # numpy scalar
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


class Emitter:
    """Writes protocol lines to a text stream, one JSON object per line, flushed after each line.

    Thread-safe: a lock keeps concurrent lines whole. The typed helpers check their arguments so that a
    handler cannot produce a line that breaks the protocol schema.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.finished = False  # set once a result or error line was written
        self.percent: float = 0  # the last progress line's, for lines that only report a state

    def emit(self, line: Mapping[str, Any]) -> None:
        text = encode_line(line)
        with self._lock:
            self._stream.write(text)
            self._stream.flush()

    def progress(
        self,
        percent: float,
        stage: str,
        phase: Phase | None = None,
        provider: Mapping[str, Any] | None = None,
    ) -> None:
        """``phase`` (quantum runs): preparing, executing or post-processing, for the status timeline;
        ``provider`` (device runs): {"job_id", "state", "queue_position"} as the provider reports them."""
        percent = _require_finite("percent", percent)
        if not 0 <= percent <= 100:
            raise ValueError(f"percent must be between 0 and 100, got {percent}")
        line: dict[str, Any] = {"type": "progress", "percent": percent, "stage": str(stage)}
        if phase is not None:
            if phase not in PHASES:
                raise ValueError(f"phase must be one of {PHASES}, got {phase!r}")
            line["phase"] = phase
        if provider is not None:
            position = provider.get("queue_position")
            if position is not None and (isinstance(position, bool) or not isinstance(position, int)):
                raise TypeError(f"queue_position must be an integer or None, got {position!r}")
            line["provider"] = {
                "job_id": str(provider["job_id"]),
                "state": str(provider["state"]),
                "queue_position": position,
            }
        self.percent = percent
        self.emit(line)

    def log(self, message: str, level: LogLevel = "info") -> None:
        if level not in LOG_LEVELS:
            raise ValueError(f"level must be one of {LOG_LEVELS}, got {level!r}")
        self.emit({"type": "log", "level": level, "message": str(message)})

    def metric(self, name: str, value: float, step: int | None = None) -> None:
        value = _require_finite("value", value)
        if step is not None:
            step = int(step)
            if step < 0:
                raise ValueError(f"step must be >= 0, got {step}")
        self.emit({"type": "metric", "name": str(name), "value": value, "step": step})

    def chart(
        self,
        chart_type: ChartType,
        title: str,
        series: Sequence[Mapping[str, Any]],
        categories: Iterable[str | int | float] = (),
        label: str = "",
    ) -> None:
        if chart_type not in CHART_TYPES:
            raise ValueError(f"chart type must be one of {CHART_TYPES}, got {chart_type!r}")
        chart = {
            "type": chart_type,
            "title": str(title),
            "label": str(label),
            "series": [{"name": str(s["name"]), "data": list(s["data"])} for s in series],
            "categories": list(categories),
        }
        self.emit({"type": "chart", "chart": chart})

    def chart_spec(self, chart: Mapping[str, Any]) -> None:
        """A chart already built as the protocol's chart object (the shape results also carry)."""
        self.chart(
            chart["type"],
            title=chart["title"],
            series=chart["series"],
            categories=chart.get("categories", ()),
            label=chart.get("label", ""),
        )

    def artifact(self, name: str, path: str, media_type: str) -> None:
        self.emit({"type": "artifact", "name": str(name), "path": str(path), "media_type": str(media_type)})

    def result(self, data: Mapping[str, Any]) -> None:
        if not isinstance(data, Mapping):
            raise TypeError(f"result data must be a mapping, got {type(data).__name__}")
        self.emit({"type": "result", "data": dict(data)})
        self.finished = True

    def error(self, message: str, kind: ErrorKind = "runtime", field: str | None = None) -> None:
        if kind not in ERROR_KINDS:
            raise ValueError(f"error kind must be one of {ERROR_KINDS}, got {kind!r}")
        line: dict[str, Any] = {"type": "error", "message": str(message) or "unknown error", "kind": kind}
        if field:
            line["field"] = field
        self.emit(line)
        self.finished = True
