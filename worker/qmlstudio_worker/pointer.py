"""JSON pointers (RFC 6901): the one notation for field paths in the worker's messages.

The server, the engine and the worker all name a field the same way: ``/params/epochs``,
``/params/layers/2/units``; the whole document is the empty pointer ``""``.
"""

from __future__ import annotations

from collections.abc import Iterable


def escape(token: str | int) -> str:
    """One reference token: ``~`` becomes ``~0`` and ``/`` becomes ``~1`` (in that order)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join(parts: Iterable[str | int], base: str = "") -> str:
    """The pointer to ``parts`` below ``base``: join(["layers", 2], "/params") -> "/params/layers/2"."""
    return base + "".join(f"/{escape(part)}" for part in parts)


def parse(pointer: str) -> list[str]:
    """The reference tokens of a pointer; raises ValueError for text that is not one."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer (must be empty or start with '/'): {pointer!r}")
    return [unescape(token) for token in pointer[1:].split("/")]
