"""Unpacking zip members with limits on what inflating really produces, not on what the zip declares.

A zip's headers declare each member's size, but an upload is untrusted: a 2 MB zip can declare (or hold)
gigabytes of zeros. ``inflate_member`` streams a member into a file in fixed-size chunks, counting the
bytes it has actually produced, and stops as soon as they pass the smaller of the byte cap and the ratio
cap (``max_ratio`` times the member's compressed size, which is bounded by the archive's own size). Memory
stays at one chunk whatever the member holds; ``ZipLimitError`` says which limit was passed.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from typing import IO

CHUNK_BYTES = 1024 * 1024


class ZipLimitError(ValueError):
    """A member unpacks past a limit; the message names the member and the limit."""


@dataclass(frozen=True)
class InflateLimits:
    max_bytes: int
    """Bytes one member may produce."""
    max_ratio: float
    """Produced bytes per compressed byte; real data (images, MATLAB files) stays far below 100."""
    ratio_floor: int
    """Below this many produced bytes the ratio is not checked: a small, very regular file is no threat."""

    def cap(self, compressed_bytes: int) -> int:
        """The most a member of ``compressed_bytes`` may produce."""
        by_ratio = max(self.ratio_floor, int(self.max_ratio * max(compressed_bytes, 1)))
        return min(self.max_bytes, by_ratio)


def _refusal(info: zipfile.ZipInfo, limits: InflateLimits, cap: int) -> ZipLimitError:
    megabytes = cap / 1024**2
    if cap < limits.max_bytes:
        return ZipLimitError(
            f"{info.filename} in the zip unpacks to more than {megabytes:.0f} MB, over {limits.max_ratio:g} "
            "times its compressed size; it is not read"
        )
    return ZipLimitError(
        f"{info.filename} in the zip unpacks to more than {megabytes:.0f} MB; it is not read"
    )


def check_declared(infos: list[zipfile.ZipInfo], limits: InflateLimits) -> None:
    """Refuses, before anything is inflated, members whose declared sizes already pass the limits."""
    for info in infos:
        if info.file_size > limits.cap(info.compress_size):
            raise _refusal(info, limits, limits.cap(info.compress_size))


def inflate_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: InflateLimits, sink: IO[bytes]
) -> int:
    """Writes ``info``'s content to ``sink`` and returns the bytes produced; ZipLimitError past a cap
    (``sink`` then holds at most the cap plus one chunk)."""
    cap = limits.cap(info.compress_size)
    produced = 0
    with archive.open(info) as stream:
        while chunk := stream.read(CHUNK_BYTES):
            produced += len(chunk)
            if produced > cap:
                raise _refusal(info, limits, cap)
            sink.write(chunk)
    return produced
