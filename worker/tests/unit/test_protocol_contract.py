"""Contract test for the worker protocol lines.

Twin: tests/contracts/worker-protocol.test.ts (TypeScript, ajv) reads the same schema
(qmlstudio_worker/schemas/worker-protocol.schema.json) and fixtures (tests/contracts/
worker-protocol.fixtures.json); both must agree.
"""

from __future__ import annotations

import json

import pytest
from conftest import PROTOCOL_FIXTURES_PATH, load_json
from jsonschema import Draft7Validator

FIXTURES = load_json(PROTOCOL_FIXTURES_PATH)


def test_fixtures_cover_every_line_type() -> None:
    types = {line["type"] for line in FIXTURES["valid"]}
    assert types == {"progress", "log", "metric", "chart", "artifact", "result", "error"}
    assert FIXTURES["invalid"]


@pytest.mark.parametrize("line", FIXTURES["valid"], ids=lambda line: json.dumps(line)[:60])
def test_valid_fixture_validates(protocol_validator: Draft7Validator, line: object) -> None:
    assert [e.message for e in protocol_validator.iter_errors(line)] == []


@pytest.mark.parametrize("line", FIXTURES["invalid"], ids=lambda line: json.dumps(line)[:60])
def test_invalid_fixture_is_refused(protocol_validator: Draft7Validator, line: object) -> None:
    assert not protocol_validator.is_valid(line)
