"""The envelope's ``extension``: checked by the envelope schema, handed to the handler as ctx.extension."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import pytest
from test_runner import InlineKind

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.envelope import validate_job
from qmlstudio_worker.jobs.kinds import JobKind
from qmlstudio_worker.jobs.runner import run_job
from qmlstudio_worker.protocol import EXIT_OK, Emitter

DATASET = {
    "path": "/data/samples/demand.csv",
    "sha256": "a" * 64,
    "row_count": 120,
    "columns": ["date", "demand"],
    "label": "demand.csv",
    "synthetic": True,
}


def extension(**overrides: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "dataset": dict(DATASET),
        "normalization": "[-1,1]",
        "missing_values": "remove_rows",
        "target_column": None,
        "seed": 42,
    }
    value.update(overrides)
    return value


def envelope(**overrides: Any) -> dict[str, Any]:
    document: dict[str, Any] = {"kind": "self-test", "job_id": "7", "params": {}}
    document.update(overrides)
    return document


def test_without_extension_the_job_has_an_empty_one() -> None:
    assert validate_job(envelope()).extension == {}


def test_the_extension_is_kept_as_sent() -> None:
    assert validate_job(envelope(extension=extension())).extension == extension()


@pytest.mark.parametrize(
    ("ext", "field"),
    [
        ({"seed": 1}, "/extension/dataset"),
        (extension(normalization="[0,2]"), "/extension/normalization"),
        (extension(missing_values="drop"), "/extension/missing_values"),
        (extension(seed="42"), "/extension/seed"),
        (extension(colour="red"), "/extension/colour"),
        (extension(dataset={**DATASET, "path": ""}), "/extension/dataset/path"),
        (extension(dataset={k: v for k, v in DATASET.items() if k != "sha256"}), "/extension/dataset/sha256"),
    ],
)
def test_a_bad_extension_is_refused_naming_the_field(ext: dict[str, Any], field: str) -> None:
    with pytest.raises(JobValidationError) as caught:
        validate_job(envelope(extension=ext))
    assert caught.value.field == field


def test_the_handler_sees_the_extension_in_its_context(
    parse_protocol_lines: Callable[[str], list[dict[str, Any]]],
) -> None:
    seen: dict[str, Any] = {}

    def handler(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        seen.update(ctx.extension)
        return {"path": ctx.extension["dataset"]["path"]}

    kinds: dict[str, JobKind] = {
        "fake": InlineKind(
            "fake", "tests.fake", "fake.json", "a fake kind", schema={"type": "object"}, handler=handler
        )
    }
    out = io.StringIO()
    document = {"kind": "fake", "job_id": "j", "params": {}, "extension": extension()}
    code = run_job(json.dumps(document), Emitter(out), registry=kinds)
    assert code == EXIT_OK
    assert seen == extension()
    assert parse_protocol_lines(out.getvalue())[-1] == {"type": "result", "data": {"path": DATASET["path"]}}
