"""Field paths are JSON pointers (RFC 6901), escaped so that any property name round-trips."""

from __future__ import annotations

import pytest

from qmlstudio_worker import pointer


def test_join_builds_pointers_below_a_base() -> None:
    assert pointer.join(["params", "layers", 2, "units"]) == "/params/layers/2/units"
    assert pointer.join(["shots"], "/params") == "/params/shots"
    assert pointer.join([]) == ""


@pytest.mark.parametrize(("name", "token"), [("a/b", "a~1b"), ("m~n", "m~0n"), ("~1", "~01")])
def test_names_with_slash_and_tilde_are_escaped_and_round_trip(name: str, token: str) -> None:
    assert pointer.escape(name) == token
    assert pointer.parse(pointer.join(["params", name])) == ["params", name]


def test_parse_refuses_text_that_is_not_a_pointer() -> None:
    assert pointer.parse("") == []
    with pytest.raises(ValueError, match="not a JSON pointer"):
        pointer.parse("params.shots")
