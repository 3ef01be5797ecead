"""Envelope parsing, params validation, defaults and the field named by each validation error."""

from __future__ import annotations

from pathlib import Path

import pytest

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.envelope import parse_job_text, validate_job
from qmlstudio_worker.problem_schemas import fill_defaults, schema_defaults


def job(**overrides: object) -> dict[str, object]:
    document: dict[str, object] = {"kind": "self-test", "job_id": "42", "params": {}}
    document.update(overrides)
    return document


def refusal(document: object) -> JobValidationError:
    with pytest.raises(JobValidationError) as caught:
        validate_job(document)
    return caught.value


def test_defaults_are_applied_to_self_test_params() -> None:
    parsed = validate_job(job())
    assert parsed.params == {"shots": 1024, "seed": None, "delay_seconds": 0}
    assert parsed.job_id == "42"
    assert parsed.output_dir is None
    assert parsed.kind.handler_module == "qmlstudio_worker.jobs.self_test"


def test_given_params_are_kept_and_output_dir_is_a_path() -> None:
    parsed = validate_job(job(params={"shots": 10, "seed": 7}, output_dir="out/7"))
    assert parsed.params == {"shots": 10, "seed": 7, "delay_seconds": 0}
    assert parsed.output_dir == Path("out/7")


def test_unknown_kind_names_the_kind_field_and_the_known_kinds() -> None:
    error = refusal(job(kind="stock-price-prediction-v9"))
    assert error.field == "/kind"
    assert "unknown job kind 'stock-price-prediction-v9'" in error.message
    assert "self-test" in error.message


@pytest.mark.parametrize(
    ("document", "field", "phrase"),
    [
        ({"job_id": "1", "params": {}}, "/kind", "is required"),
        (job(job_id=7), "/job_id", "is not of type 'string'"),
        (job(params={"shots": 0}), "/params/shots", "less than the minimum of 1"),
        (job(params={"shots": True}), "/params/shots", "is not of type 'integer'"),
        (job(params={"seed": 2**32}), "/params/seed", "4294967296 is greater than the maximum of 4294967295"),
        (job(params={"seed": -1}), "/params/seed", "-1 is less than the minimum of 0"),
        (job(params={"seed": "7"}), "/params/seed", "'7' is not of type 'integer', 'null'"),
        (job(params={"delay_seconds": 601}), "/params/delay_seconds", "greater than the maximum of 600"),
        (
            job(params={"shots": 1, "colour": "red"}),
            "/params/colour",
            "unknown field (allowed: delay_seconds",
        ),
        (job(extra=True), "/extra", "unknown field"),
    ],
)
def test_refusals_name_the_field(document: dict[str, object], field: str, phrase: str) -> None:
    error = refusal(document)
    assert error.field == field
    assert error.message.startswith(f"{field}: ")
    assert phrase in error.message


@pytest.mark.parametrize("document", [[], "self-test", 3, None])
def test_a_job_that_is_not_an_object_is_refused(document: object) -> None:
    error = refusal(document)
    assert error.field is None
    assert error.message.startswith("job: must be a JSON object")


@pytest.mark.parametrize("text", ["", "  \n"])
def test_empty_stdin_is_refused(text: str) -> None:
    with pytest.raises(JobValidationError, match="no job received"):
        parse_job_text(text)


def test_invalid_json_is_refused() -> None:
    with pytest.raises(JobValidationError, match="not valid JSON"):
        parse_job_text('{"kind": ')


def test_fill_defaults_does_not_touch_the_input() -> None:
    schema = {"properties": {"a": {"default": [1]}, "b": {"type": "integer"}}}
    params: dict[str, object] = {}
    filled = fill_defaults(params, schema_defaults(schema))
    assert filled == {"a": [1]}
    assert params == {}
    assert filled["a"] is not schema["properties"]["a"]["default"]
