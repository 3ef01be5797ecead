"""Zip members unpacked with caps on the bytes really produced (bounded_unzip.py), and the .mat reader
(problems/brain_tumor/mat_data.py) refusing zip bombs without holding them in memory. The bombs are built
here: one deflate block of zeros flushed to a byte boundary, repeated, so a 2 MB zip inflates to 2 GB
without the test compressing 2 GB."""

from __future__ import annotations

import io
import json
import random
import re
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest

from qmlstudio_worker.bounded_unzip import InflateLimits, ZipLimitError, inflate_member
from qmlstudio_worker.problems.brain_tumor import mat_data
from qmlstudio_worker.problems.brain_tumor.mat_data import MatFormatError, open_mat_dataset

MIB = 1024 * 1024
MAT_HEADER = b"MATLAB 5.0 MAT-file, Platform: GLNXA64".ljust(116, b" ") + b"\0" * 8 + b"\x00\x01IM"
WORKER_DIR = Path(__file__).resolve().parents[2]


def _deflate_repeated(first: bytes, block: bytes, repeats: int) -> bytes:
    """Raw deflate of ``first`` then ``repeats`` copies of ``block``, each ended by a full flush (no
    back-reference crosses it, so the compressed block can be repeated as is)."""
    head = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = head.compress(first) + head.flush(zlib.Z_FULL_FLUSH)
    body = zlib.compressobj(9, zlib.DEFLATED, -15)
    repeated = body.compress(block) + body.flush(zlib.Z_FULL_FLUSH)
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)  # an empty final block
    return start + repeated * repeats + end


def write_bomb(
    path: Path, name: str, first: bytes, block: bytes, repeats: int, declared: int | None = None
) -> int:
    """A zip of one deflated member ``first + block * repeats``, its CRC right; ``declared`` (default the
    true size) is the size its headers state. Returns the true size."""
    data = _deflate_repeated(first, block, repeats)
    size = len(first) + len(block) * repeats
    crc = zlib.crc32(first)
    for _ in range(repeats):
        crc = zlib.crc32(block, crc)
    stated = size if declared is None else declared
    encoded = name.encode()
    local = struct.pack(
        "<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(data), stated, len(encoded), 0
    )
    central = struct.pack(
        "<4sHHHHHHIIIHHHHHII",
        b"PK\x01\x02",
        20,
        20,
        0,
        8,
        0,
        0,
        crc,
        len(data),
        stated,
        len(encoded),
        0,
        0,
        0,
        0,
        0,
        0,
    )
    directory_offset = len(local) + len(encoded) + len(data)
    directory = central + encoded
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(directory), directory_offset, 0)
    path.write_bytes(local + encoded + data + directory + end)
    return size


class CountingSink(io.RawIOBase):
    def __init__(self) -> None:
        self.written = 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        self.written += len(data)
        return len(data)


def test_inflating_stops_once_the_bytes_produced_pass_the_cap(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    size = write_bomb(bomb, "1.mat", MAT_HEADER, bytes(MIB), 64)
    limits = InflateLimits(max_bytes=8 * MIB, max_ratio=1e9, ratio_floor=0)
    sink = CountingSink()
    with zipfile.ZipFile(bomb) as archive, pytest.raises(ZipLimitError, match=r"1\.mat in the zip unpacks"):
        inflate_member(archive, archive.infolist()[0], limits, sink)  # type: ignore[arg-type]
    assert size > 64 * MIB
    # What was produced: the cap and at most one chunk past it, not the member's 64 MB.
    assert sink.written <= 8 * MIB
    # A member within the caps is copied whole.
    whole = CountingSink()
    with zipfile.ZipFile(bomb) as archive:
        roomy = InflateLimits(max_bytes=128 * MIB, max_ratio=1e9, ratio_floor=0)
        assert inflate_member(archive, archive.infolist()[0], roomy, whole) == size  # type: ignore[arg-type]
    assert whole.written == size


def test_the_ratio_cap_depends_on_the_compressed_size_not_the_declared_one(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    write_bomb(bomb, "1.mat", MAT_HEADER, bytes(MIB), 32)
    limits = InflateLimits(max_bytes=1024 * MIB, max_ratio=100, ratio_floor=MIB)
    sink = CountingSink()
    with zipfile.ZipFile(bomb) as archive:
        info = archive.infolist()[0]
        cap = limits.cap(info.compress_size)
        assert cap < 32 * MIB
        with pytest.raises(ZipLimitError, match="over 100 times its compressed size"):
            inflate_member(archive, info, limits, sink)  # type: ignore[arg-type]
    assert sink.written <= cap


def test_a_zip_whose_headers_understate_the_member_is_refused_as_damaged(tmp_path: Path) -> None:
    liar = tmp_path / "liar.zip"
    write_bomb(liar, "1.mat", MAT_HEADER, bytes(MIB), 48, declared=MIB)
    assert mat_data.MAX_ZIP_RATIO * liar.stat().st_size > MIB  # the declared sizes pass every check
    with pytest.raises(MatFormatError, match=r"^the zip is damaged \(1\.mat\)"):
        open_mat_dataset(liar).close()


def test_a_2_gb_zip_bomb_with_a_mat_header_is_refused_by_its_ratio(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    write_bomb(bomb, "1.mat", MAT_HEADER, bytes(MIB), 2047)
    assert bomb.stat().st_size < 3 * MIB
    with pytest.raises(MatFormatError) as caught:
        open_mat_dataset(bomb).close()
    # Refused from the headers, before anything is inflated: 100 times the ~2 MB compressed member.
    assert re.fullmatch(
        r"1\.mat in the zip unpacks to more than 20\d MB, over 100 times its compressed size; it is not read",
        str(caught.value),
    ), str(caught.value)


def _max_rss_of_mat_inspect(path: Path) -> tuple[dict[str, object], int]:
    """Runs ``mat-inspect`` on ``path`` in its own process; its error line and its peak memory in bytes."""
    script = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'qmlstudio_worker', 'mat-inspect'],"
        " input=sys.argv[1], capture_output=True, text=True)\n"
        "sys.stdout.write(done.stdout)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps({"path": str(path)})],
        capture_output=True,
        text=True,
        cwd=WORKER_DIR,
        check=True,
        timeout=300,
    )
    *lines, rss_kib = done.stdout.strip().splitlines()
    return json.loads(lines[-1]), int(rss_kib) * 1024


def test_a_large_member_within_the_ratio_is_unpacked_to_disk_not_memory(tmp_path: Path) -> None:
    # 200 MB of bytes that compress about 50:1 pass the declared-size checks; the reader must not hold
    # them in memory (it did: the whole member as bytes, then a copy).
    pattern = random.Random(7).randbytes(20 * 1024).ljust(MIB, b"\0")
    big = tmp_path / "big.zip"
    size = write_bomb(big, "1.mat", MAT_HEADER, pattern, 200 * MIB // len(pattern))
    assert size >= 199 * MIB
    assert size / big.stat().st_size < mat_data.MAX_ZIP_RATIO
    error, max_rss = _max_rss_of_mat_inspect(big)
    assert error["type"] == "error"
    assert error["field"] == "/path"
    assert str(error["message"]).startswith("the MATLAB file could not be read (1.mat)")
    # Measured with a 400 MB member: 77 MB with the member on disk, 842 MB when it was read into memory (the
    # bytes and a copy). 200 MB here: even one in-memory copy of the member would pass the 200 MB bound.
    assert max_rss < 200 * MIB, f"mat-inspect peaked at {max_rss / MIB:.0f} MB"
