"""Loading a job's CSV dataset: UTF-8 text with a header row, read into a pandas DataFrame.

``load_csv`` takes the file's bytes or its path and refuses, each with one plain sentence that names the
problem (the server shows it after "Error uploading file." and a job's failure log carries it): a file
over the size limit, an empty file, binary content (a workbook, an archive, an image), text that is not
UTF-8, a first line that is empty or holds only numbers (no header row), blank or repeated column names,
and a header without data rows. Rows follow the one CSV row rule the browser and the server share
(tests/contracts/csv-row-rule.json): blank lines are skipped, and a row whose number of values differs
from the header's is dropped and counted (``dropped_rows``; the job logs it as a warning). What it
returns carries the DataFrame and the facts an output records: rows kept, rows dropped, columns and the
sha256 of the exact bytes.
``require_columns`` refuses a dataset that lacks columns a job needs, naming the missing ones.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd  # type: ignore[import-untyped]

#: Largest dataset accepted, in bytes (50 MiB); the four samples together are about 5.5 MB.
DEFAULT_MAX_BYTES = 50 * 1024 * 1024

_MAX_NAMES_LISTED = 12
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")

# Leading bytes of common non-text files, with the words used to name them.
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a zip archive or an Excel workbook (.xlsx)"),
    (b"\xd0\xcf\x11\xe0", "an old Excel workbook (.xls) or another Office file"),
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"PAR1", "a Parquet file"),
)


class DatasetError(ValueError):
    """A dataset the worker refuses; ``message`` is one plain sentence naming the problem."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class DatasetFacts:
    """What an output records about its dataset."""

    rows: int
    columns: tuple[str, ...]
    sha256: str
    size_bytes: int
    #: Data rows dropped because their number of values differs from the header's.
    dropped_rows: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "dropped_rows": self.dropped_rows,
            "columns": list(self.columns),
            "column_count": len(self.columns),
            "sha256": self.sha256,
            "size_bytes": self.size_bytes,
        }


@dataclass(frozen=True)
class LoadedDataset:
    frame: pd.DataFrame
    facts: DatasetFacts


def _size(size: int) -> str:
    """A size in plain words: "50 MB", "60.5 MB", "12 KB" (binary units, as the limit is set)."""
    value, unit = (size / (1024 * 1024), "MB") if size >= 1024 * 1024 else (size / 1024, "KB")
    text = f"{value:.1f}".removesuffix(".0")
    return f"{text} {unit}"


def _quoted(names: Sequence[str]) -> str:
    shown = [f"'{name}'" for name in names[:_MAX_NAMES_LISTED]]
    if len(names) > _MAX_NAMES_LISTED:
        shown.append(f"and {len(names) - _MAX_NAMES_LISTED} more")
    return ", ".join(shown)


def _check_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise DatasetError(
            f"The file is {_size(size)} ({size:,} bytes), over the {_size(max_bytes)} limit for a dataset."
        )


def _read_source(source: bytes | str | Path, max_bytes: int) -> bytes:
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        _check_size(len(data), max_bytes)
        return data
    path = Path(source)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise DatasetError(f"The dataset file '{path.name}' was not found.") from None
    except OSError as exc:
        raise DatasetError(f"The dataset file '{path.name}' could not be read ({exc.strerror}).") from None
    if not path.is_file():
        raise DatasetError(f"'{path.name}' is not a file.")
    _check_size(size, max_bytes)  # before reading: an oversized file is never loaded
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"The dataset file '{path.name}' could not be read ({exc.strerror}).") from None
    _check_size(len(data), max_bytes)
    return data


def _decode(data: bytes) -> str:
    if not data.strip():
        raise DatasetError("The file is empty." if not data else "The file holds only blank space.")
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            raise DatasetError(f"The file is {kind}, not CSV text; save it as a CSV file (UTF-8).")
    if b"\x00" in data:
        raise DatasetError("The file holds binary data, not CSV text; save it as a CSV file (UTF-8).")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DatasetError(
            f"The file is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); save it as CSV UTF-8."
        ) from None
    return text


def _header(text: str) -> list[str]:
    first_line = text.splitlines()[0] if text else ""
    if not first_line.strip():
        raise DatasetError(
            "The first line is empty; the file must start with a header row naming the columns."
        )
    try:
        header = next(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise DatasetError(f"The header row could not be read as CSV ({exc}).") from None
    if all(_NUMBER.fullmatch(cell.strip()) for cell in header):
        raise DatasetError(
            "The first row holds only numbers, so the file has no header row; "
            "add a first row that names the columns."
        )
    if len(header) == 1:
        for separator, words in ((";", "semicolons"), ("\t", "tabs"), ("|", "vertical bars")):
            if separator in header[0]:
                raise DatasetError(
                    f"The header row is separated by {words}, not commas; "
                    "save the file as comma-separated CSV."
                )
    blank = [index + 1 for index, name in enumerate(header) if not name.strip()]
    if blank:
        positions = ", ".join(str(position) for position in blank)
        plural = "s" if len(blank) > 1 else ""
        raise DatasetError(
            f"The header row has no name for column{plural} {positions}; every column needs a name."
        )
    seen: set[str] = set()
    repeated: list[str] = []
    for name in header:
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    if repeated:
        plural = "s" if len(repeated) > 1 else ""
        raise DatasetError(
            f"The header row repeats the column name{plural} {_quoted(repeated)}; "
            "column names must be unique."
        )
    return header


@dataclass(frozen=True)
class RowCount:
    """What the CSV row rule made of a text's data rows."""

    kept: int
    dropped: int
    #: The header and the kept rows as CSV text, when a row was dropped (else None: the text as it is).
    kept_text: str | None


def count_rows(text: str, width: int, *, rewrite: bool = False) -> RowCount:
    """Apply the one CSV row rule to ``text`` (its first row the header of ``width`` columns): blank lines
    skipped, rows whose number of values differs from ``width`` dropped and counted. Quoted values may hold
    commas, doubled quotes and line breaks (RFC 4180); LF, CRLF and CR end a row. ``kept_text`` is set when
    a row was dropped or ``rewrite`` asks for it."""
    reader = csv.reader(io.StringIO(text, newline=""))
    kept: list[list[str]] = []
    dropped = 0
    try:
        header = next(reader)
        for row in reader:
            if not row:
                continue  # a blank line
            if len(row) == width:
                kept.append(row)
            else:
                dropped += 1
    except csv.Error as exc:
        raise DatasetError(f"Line {reader.line_num} could not be read as CSV ({exc}).") from None
    if dropped == 0 and not rewrite:
        return RowCount(kept=len(kept), dropped=0, kept_text=None)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(kept)
    return RowCount(kept=len(kept), dropped=dropped, kept_text=out.getvalue())


def _parse(text: str, header: list[str]) -> tuple[pd.DataFrame, int]:
    """The kept rows as a DataFrame, and how many rows were dropped."""
    count = count_rows(text, len(header))
    if count.kept == 0:
        if count.dropped:
            raise DatasetError(
                f"No data row has the header's {len(header)} values: all {count.dropped} rows were dropped."
            )
        raise DatasetError("The file has a header row but no data rows.")
    frame = _read_frame(text if count.kept_text is None else count.kept_text, header)
    if len(frame.index) != count.kept:
        # pandas skipped a row the rule keeps (only spaces in a one-column file): read the kept rows
        # alone, where no line is blank, without pandas' own skipping.
        kept_text = count_rows(text, len(header), rewrite=True).kept_text or ""
        frame = _read_frame(kept_text, header, skip_blank_lines=False)
    return frame, count.dropped


def _read_frame(text: str, header: list[str], *, skip_blank_lines: bool = True) -> pd.DataFrame:
    try:
        frame = pd.read_csv(io.StringIO(text), header=0, index_col=False, skip_blank_lines=skip_blank_lines)
    except pd.errors.EmptyDataError:
        raise DatasetError("The file has a header row but no data rows.") from None
    except pd.errors.ParserError as exc:
        raise DatasetError(f"The file could not be read as CSV ({str(exc).strip()}).") from None
    if [str(column) for column in frame.columns] != header:
        raise DatasetError("The header row could not be read the same way as the rows below it.")
    return frame


def load_csv(
    source: bytes | str | Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    required_columns: Iterable[str] = (),
) -> LoadedDataset:
    """Read a CSV dataset (its bytes, or a path to it) into a DataFrame with its facts.

    Raises ``DatasetError`` with a plain sentence naming the problem when the file is refused.
    """
    data = _read_source(source, max_bytes)
    text = _decode(data)
    header = _header(text)
    frame, dropped = _parse(text, header)
    require_columns(header, required_columns)
    facts = DatasetFacts(
        rows=len(frame.index),
        columns=tuple(header),
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
        dropped_rows=dropped,
    )
    return LoadedDataset(frame=frame, facts=facts)


def dropped_rows_note(facts: DatasetFacts) -> str | None:
    """The warning a job logs when the row rule dropped rows of its dataset; None when none were."""
    if facts.dropped_rows == 0:
        return None
    plural = "s" if facts.dropped_rows > 1 else ""
    return (
        f"{facts.dropped_rows} row{plural} of the dataset dropped: "
        f"{'their' if plural else 'its'} number of values differs from the header's {len(facts.columns)}."
    )


def require_columns(available: pd.DataFrame | Iterable[str], required: Iterable[str]) -> None:
    """Refuse, naming them, the ``required`` columns that ``available`` (a DataFrame or names) lacks."""
    names = [
        str(column) for column in (available.columns if isinstance(available, pd.DataFrame) else available)
    ]
    present = set(names)
    missing: list[str] = []
    for column in required:
        if column not in present and column not in missing:
            missing.append(column)
    if not missing:
        return
    if len(missing) == 1:
        lead = f"The dataset has no column named '{missing[0]}'"
    else:
        lead = f"The dataset is missing the columns {_quoted(missing)}"
    raise DatasetError(f"{lead}; its columns are {_quoted(names)}.")
