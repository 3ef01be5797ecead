"""Brain tumor MRI slices from MATLAB .mat files, in the layout of Figshare's brain tumor set (Cheng et al.).

Each slice is a struct ``cjdata`` with ``image`` (2-D intensities), ``label`` (1 meningioma, 2 glioma,
3 pituitary), ``PID`` (patient id, text), ``tumorBorder`` (x1, y1, x2, y2, ... on the tumor's border) and
``tumorMask`` (2-D, 1 inside the tumor). Three containers are read:

- MATLAB v7.3 (HDF5, through h5py): one slice per file (Figshare's files: ``cjdata`` a group whose fields are
  datasets) or a 1xN struct array (MATLAB's own layout: each field a dataset of object references into
  ``#refs#``). HDF5 stores MATLAB's column-major arrays with their dimensions reversed, so every matrix read
  is transposed back;
- MATLAB v5/v7 (scipy.io.loadmat): ``cjdata`` a 1x1 struct or a struct array; these files are read whole;
- a .zip of such .mat files (read in natural name order: 2.mat before 10.mat; directories and other files
  skipped), refused past ``MAX_ZIP_MEMBERS`` members, ``MAX_ZIP_BYTES`` unpacked or a member unpacking to
  more than ``MAX_ZIP_RATIO`` times its compressed size. Members are inflated as a stream into a temporary
  file, counting the bytes really produced (``bounded_unzip``): a zip that lies about its sizes costs
  neither memory nor more disk than the caps.

The count, labels and patient ids are read when the dataset opens (every label is checked then); images,
borders and masks only when a slice is asked for. A file that is not one of these, or whose content breaks
the layout, raises ``MatFormatError`` with the text the user sees after 'Error parsing file: '.
"""

from __future__ import annotations

import bisect
import re
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Literal, Protocol

import numpy as np

from qmlstudio_worker.bounded_unzip import InflateLimits, ZipLimitError, check_declared, inflate_member

CLASS_NAMES = ("meningioma", "glioma", "pituitary")
FIELDS = ("image", "label", "PID", "tumorBorder", "tumorMask")
MAX_ZIP_MEMBERS = 10_000
MAX_ZIP_BYTES = 2 * 1024**3
# MATLAB compresses its own variables (v7 and v7.3), so zipping real .mat files barely shrinks them.
MAX_ZIP_RATIO = 100
ZIP_RATIO_FLOOR = 16 * 1024**2
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
# HDF5 looks for its superblock at 0, 512, 1024, 2048, ...; MATLAB v7.3 puts it at 512 after its text header.
HDF5_OFFSETS = (0, 512, 1024, 2048)
V5_HEADER = b"MATLAB 5.0 MAT-file"

MatFormat = Literal["mat-v7.3", "mat-v5", "zip"]


class MatFormatError(ValueError):
    """The file is not a brain tumor .mat dataset; the message is what the user is shown."""


@dataclass(frozen=True)
class MriSlice:
    image: np.ndarray[Any, Any]  # (H, W) float32, raw intensities
    label: int  # 1..3
    pid: str
    border: np.ndarray[Any, Any]  # (k, 2) float32 (x, y) points
    mask: np.ndarray[Any, Any]  # (H, W) bool


def class_name(label: int) -> str:
    """'meningioma', 'glioma' or 'pituitary' for the labels 1, 2 and 3."""
    return CLASS_NAMES[label - 1]


class _Source(Protocol):
    """One container's slices, numbered from 0; ``where`` names it in messages (a zip member)."""

    def __len__(self) -> int: ...
    def labels(self) -> list[int]: ...
    def pids(self) -> list[str]: ...
    def read(self, index: int, number: int) -> MriSlice: ...
    def close(self) -> None: ...


# ---- values shared by the readers ------------------------------------------------------------------------


def _label(raw: Any, number: int, where: str) -> int:
    values = np.asarray(raw).ravel()
    if values.size == 1 and np.issubdtype(values.dtype, np.number):
        value = float(values[0])
        if value in (1.0, 2.0, 3.0):
            return int(value)
    raise MatFormatError(f"label must be 1, 2 or 3 at slice {number}{where}")


def _pid(raw: Any) -> str:
    array = np.asarray(raw)
    if array.dtype.kind in "US":
        return "".join(str(v) for v in array.ravel()).strip()
    if array.size == 1 and np.issubdtype(array.dtype, np.number):
        value = float(array.ravel()[0])
        return str(int(value)) if value.is_integer() else str(value)
    return "".join(chr(int(c)) for c in array.ravel() if int(c) != 0).strip()


def _slice(image: Any, label: int, pid: str, border: Any, mask: Any, number: int, where: str) -> MriSlice:
    picture = np.asarray(image)
    if picture.ndim != 2 or 0 in picture.shape or picture.dtype.kind not in "biuf":
        raise MatFormatError(
            f"image at slice {number}{where} must be a 2-D numeric array, got shape {picture.shape}"
        )
    points = np.asarray(border, dtype=np.float64)
    if points.ndim == 2 and points.shape[1] == 2 and points.shape[0] != 1:
        pairs = points  # already a k x 2 matrix of (x, y) rows
    elif points.size % 2 == 0:
        pairs = points.ravel().reshape(-1, 2)  # MATLAB's [x1, y1, x2, y2, ...]
    else:
        raise MatFormatError(f"tumorBorder at slice {number}{where} must hold (x, y) pairs")
    region = np.asarray(mask)
    if region.size == 0:
        region = np.zeros(picture.shape, dtype=bool)
    if region.shape != picture.shape:
        raise MatFormatError(
            f"tumorMask at slice {number}{where} is {'x'.join(map(str, region.shape))}, "
            f"the image {'x'.join(map(str, picture.shape))}"
        )
    return MriSlice(
        image=picture.astype(np.float32),
        label=label,
        pid=pid,
        border=pairs.astype(np.float32),
        mask=region.astype(bool),
    )


# ---- MATLAB v7.3 (HDF5) ----------------------------------------------------------------------------------


def _damaged(exc: Exception, where: str) -> MatFormatError:
    """The HDF5 library could not read the file: a damaged one makes h5py raise OSError, KeyError,
    ValueError, ... from deep inside."""
    return MatFormatError(f"the MATLAB v7.3 (HDF5) file is damaged{where}: {exc}")


def _matlab_class(dataset: Any) -> str:
    raw = dataset.attrs.get("MATLAB_class", b"")
    return raw.decode("ascii", "replace") if isinstance(raw, bytes) else str(raw)


class _Hdf5Source:
    def __init__(self, file: str | Path | IO[bytes], base: int, where: str) -> None:
        import h5py  # type: ignore[import-untyped]

        self._base, self._where = base, where
        try:
            self._file = h5py.File(file, "r")
        except OSError as exc:
            raise MatFormatError(f"the MATLAB v7.3 (HDF5) file could not be read{where}: {exc}") from exc
        try:
            self._open(h5py)
        except Exception as exc:
            self._file.close()
            if isinstance(exc, MatFormatError):
                raise
            raise _damaged(exc, where) from exc

    def _open(self, h5py: Any) -> None:
        group = self._file.get("cjdata")
        if group is None:
            raise MatFormatError(f"no cjdata struct in the file{self._where}")
        if not isinstance(group, h5py.Group):
            raise MatFormatError(f"cjdata is not a struct{self._where}")
        missing = [name for name in FIELDS if name not in group]
        if missing:
            raise MatFormatError(f"cjdata has no {', '.join(missing)} field{self._where}")
        fields = {name: group[name] for name in FIELDS}
        if any(not isinstance(f, h5py.Dataset) for f in fields.values()):
            raise MatFormatError(f"cjdata's fields must be arrays, not nested structs{self._where}")
        is_ref = [h5py.check_dtype(ref=f.dtype) is not None for f in fields.values()]
        self._refs: dict[str, np.ndarray[Any, Any]] | None = None
        if all(is_ref):  # a struct array: row i of each field points at that slice's value in #refs#
            self._refs = {name: np.asarray(f[()]).ravel() for name, f in fields.items()}
            sizes = {len(r) for r in self._refs.values()}
            if len(sizes) != 1:
                raise MatFormatError(f"cjdata's fields have different lengths{self._where}")
            self._count = sizes.pop()
        elif any(is_ref):
            raise MatFormatError(f"cjdata mixes a struct array with single values{self._where}")
        else:
            self._count = 1
        self._fields = fields
        self._labels = [
            _label(self._value("label", i), self._base + i + 1, self._where) for i in range(self._count)
        ]
        self._pids = [_pid(self._value("PID", i)) for i in range(self._count)]

    def _value(self, name: str, index: int) -> np.ndarray[Any, Any]:
        import h5py

        dataset = self._fields[name] if self._refs is None else self._file[self._refs[name][index]]
        if not isinstance(dataset, h5py.Dataset):
            raise MatFormatError(f"cjdata.{name} of slice {self._base + index + 1} is not an array")
        if dataset.attrs.get("MATLAB_empty", 0):
            return np.zeros((0,))
        value = np.asarray(dataset[()])
        # HDF5 holds MATLAB's dimensions reversed: transpose back to MATLAB's (rows, columns).
        value = value.T if value.ndim >= 2 else value
        if _matlab_class(dataset) == "char":  # UTF-16 code units
            return np.array("".join(chr(int(c)) for c in value.ravel() if int(c) != 0))
        return value

    def __len__(self) -> int:
        return self._count

    def labels(self) -> list[int]:
        return self._labels

    def pids(self) -> list[str]:
        return self._pids

    def read(self, index: int, number: int) -> MriSlice:
        try:
            image, border, mask = (self._value(name, index) for name in ("image", "tumorBorder", "tumorMask"))
        except MatFormatError:
            raise
        except Exception as exc:
            raise _damaged(exc, self._where) from exc
        return _slice(image, self._labels[index], self._pids[index], border, mask, number, self._where)

    def close(self) -> None:
        self._file.close()


# ---- MATLAB v5/v7 (scipy.io) -----------------------------------------------------------------------------


class _V5Source:
    def __init__(self, file: str | Path | IO[bytes], base: int, where: str) -> None:
        from scipy import io as scipy_io  # type: ignore[import-untyped]

        self._base, self._where = base, where
        try:
            content = scipy_io.loadmat(file, struct_as_record=True, variable_names=["cjdata"])
        except Exception as exc:  # scipy raises many kinds for a damaged file
            raise MatFormatError(f"the MATLAB file could not be read{where}: {exc}") from exc
        struct = content.get("cjdata")
        if struct is None:
            raise MatFormatError(f"no cjdata struct in the file{where}")
        names = struct.dtype.names if isinstance(struct, np.ndarray) else None
        if not names:
            raise MatFormatError(f"cjdata is not a struct{where}")
        missing = [name for name in FIELDS if name not in names]
        if missing:
            raise MatFormatError(f"cjdata has no {', '.join(missing)} field{where}")
        self._items = struct.ravel(order="F")  # MATLAB's linear order
        self._labels = [_label(item["label"], base + i + 1, where) for i, item in enumerate(self._items)]
        self._pids = [_pid(item["PID"]) for item in self._items]

    def __len__(self) -> int:
        return len(self._items)

    def labels(self) -> list[int]:
        return self._labels

    def pids(self) -> list[str]:
        return self._pids

    def read(self, index: int, number: int) -> MriSlice:
        item = self._items[index]
        return _slice(
            item["image"],
            self._labels[index],
            self._pids[index],
            item["tumorBorder"],
            item["tumorMask"],
            number,
            self._where,
        )

    def close(self) -> None:
        self._items = np.empty(0, dtype=object)


# ---- container detection and zip -------------------------------------------------------------------------


def _sniff(head: bytes, where: str = "") -> MatFormat:
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if any(head[offset : offset + 8] == HDF5_SIGNATURE for offset in HDF5_OFFSETS):
        return "mat-v7.3"
    if head.startswith(V5_HEADER):
        return "mat-v5"
    raise MatFormatError(
        f"not a MATLAB file{where}: expected a .mat file (MATLAB v5, v7 or v7.3) or a .zip of .mat files"
    )


def _head(file: IO[bytes]) -> bytes:
    start = file.tell()
    head = file.read(max(HDF5_OFFSETS) + 8)
    file.seek(start)
    return head


def _natural_key(name: str) -> list[Any]:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name)]


def _inflate_limits(max_bytes: int) -> InflateLimits:
    return InflateLimits(max_bytes=max_bytes, max_ratio=MAX_ZIP_RATIO, ratio_floor=ZIP_RATIO_FLOOR)


class _UnpackedMember:
    """A zip member's source over its temporary file, which closes (and so deletes) with it."""

    def __init__(self, source: _Source, file: IO[bytes]) -> None:
        self._source, self._file = source, file

    def __len__(self) -> int:
        return len(self._source)

    def labels(self) -> list[int]:
        return self._source.labels()

    def pids(self) -> list[str]:
        return self._source.pids()

    def read(self, index: int, number: int) -> MriSlice:
        return self._source.read(index, number)

    def close(self) -> None:
        try:
            self._source.close()
        finally:
            self._file.close()


class _ZipSource:
    """The .mat members of a zip, indexed once; the member being read stays open for the next slice."""

    def __init__(self, path: str | Path) -> None:
        try:
            self._zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise MatFormatError(f"not a valid zip file: {exc}") from exc
        try:
            self._index()
        except Exception:
            self._zip.close()
            raise
        self._open_member: tuple[int, _Source] | None = None

    def _index(self) -> None:
        infos = self._zip.infolist()
        if len(infos) > MAX_ZIP_MEMBERS:
            raise MatFormatError(f"the zip holds {len(infos)} files; at most {MAX_ZIP_MEMBERS} are read")
        if sum(info.file_size for info in infos) > MAX_ZIP_BYTES:
            raise MatFormatError(f"the zip unpacks to more than {MAX_ZIP_BYTES // 1024**3} GB")
        members = [
            info
            for info in infos
            if not info.is_dir()
            and info.filename.lower().endswith(".mat")
            and not info.filename.startswith("__MACOSX/")
        ]
        if not members:
            raise MatFormatError("the zip holds no .mat file")
        if any(info.flag_bits & 0x1 for info in members):
            raise MatFormatError("the zip is encrypted")
        try:
            check_declared(members, _inflate_limits(MAX_ZIP_BYTES))
        except ZipLimitError as exc:
            raise MatFormatError(str(exc)) from exc
        self._members = sorted(members, key=lambda info: _natural_key(info.filename))
        self._starts: list[int] = []
        self._labels: list[int] = []
        self._pids: list[str] = []
        unpacked = 0  # bytes really produced: the declared sizes checked above may be false
        for position in range(len(self._members)):
            source, produced = self._open(position, len(self._labels), MAX_ZIP_BYTES - unpacked)
            unpacked += produced
            try:
                self._starts.append(len(self._labels))
                self._labels.extend(source.labels())
                self._pids.extend(source.pids())
            finally:
                source.close()

    def _open(self, position: int, base: int, budget: int) -> tuple[_Source, int]:
        """The member at ``position`` unpacked into a temporary file (at most ``budget`` bytes), and the
        bytes it produced."""
        info = self._members[position]
        where = f" ({info.filename})"
        data = tempfile.TemporaryFile()  # noqa: SIM115 - _UnpackedMember closes it, or a failure below
        try:
            produced = inflate_member(self._zip, info, _inflate_limits(budget), data)
            data.seek(0)
            kind = _sniff(_head(data), where)
            if kind == "zip":
                raise MatFormatError(f"a zip inside the zip is not read{where}")
            source = _Hdf5Source(data, base, where) if kind == "mat-v7.3" else _V5Source(data, base, where)
        except ZipLimitError as exc:
            data.close()
            raise MatFormatError(str(exc)) from exc
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            data.close()
            raise MatFormatError(f"the zip is damaged{where}: {exc}") from exc
        except BaseException:
            data.close()
            raise
        return _UnpackedMember(source, data), produced

    def __len__(self) -> int:
        return len(self._labels)

    def labels(self) -> list[int]:
        return self._labels

    def pids(self) -> list[str]:
        return self._pids

    def read(self, index: int, number: int) -> MriSlice:
        position = bisect.bisect_right(self._starts, index) - 1
        if self._open_member is None or self._open_member[0] != position:
            if self._open_member is not None:
                self._open_member[1].close()
            self._open_member = (position, self._open(position, self._starts[position], MAX_ZIP_BYTES)[0])
        return self._open_member[1].read(index - self._starts[position], number)

    def close(self) -> None:
        if self._open_member is not None:
            self._open_member[1].close()
            self._open_member = None
        self._zip.close()


# ---- the dataset ---------------------------------------------------------------------------------------


class MatDataset:
    """The slices of one .mat file or zip, numbered from 0. Use as a context manager (it holds the file)."""

    def __init__(self, source: _Source, fmt: MatFormat) -> None:
        self._source = source
        self.format: MatFormat = fmt
        self._labels = np.asarray(source.labels(), dtype=np.int64)

    def __len__(self) -> int:
        return len(self._labels)

    def labels(self) -> np.ndarray[Any, np.dtype[np.int64]]:
        """Every slice's label (1..3), without reading any image."""
        return self._labels.copy()

    def pids(self) -> list[str]:
        """Every slice's patient id, without reading any image."""
        return list(self._source.pids())

    def slice(self, index: int) -> MriSlice:
        """Slice ``index`` (0-based); IndexError outside 0..len-1."""
        if not 0 <= index < len(self):
            raise IndexError(f"slice index {index} is out of range: the dataset has {len(self)} slices")
        return self._source.read(index, index + 1)

    def images(self, indices: Sequence[int]) -> Iterator[MriSlice]:
        """The slices at ``indices`` (0-based), read one at a time."""
        for index in indices:
            yield self.slice(int(index))

    def close(self) -> None:
        self._source.close()

    def __enter__(self) -> MatDataset:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def open_mat_dataset(path: str | Path) -> MatDataset:
    """Opens a .mat file (v7.3 or v5/v7) or a .zip of .mat files, by content (not by name)."""
    try:
        with open(path, "rb") as handle:
            kind = _sniff(_head(handle))
    except OSError as exc:
        raise MatFormatError(f"the file could not be opened: {exc.strerror or exc}") from exc
    source: _Source
    if kind == "zip":
        source = _ZipSource(path)
    elif kind == "mat-v7.3":
        source = _Hdf5Source(path, 0, "")
    else:
        source = _V5Source(str(path), 0, "")
    if len(source) == 0:
        source.close()
        raise MatFormatError("cjdata holds no slice")
    return MatDataset(source, kind)
