"""Writes brain tumor slices as MATLAB v7.3 .mat files (the layout mat_data.py reads), byte for byte the same
for the same slices: the synthetic sample's generator and the tests use it.

A v7.3 file is HDF5 behind a 512-byte MATLAB text header (the HDF5 userblock). MATLAB stores arrays
column-major, so HDF5 sees their dimensions reversed: every matrix is written transposed. Each array carries
MATLAB_class ('double', 'int16', 'char', 'logical'); char is UTF-16 code units, logical uint8.

- ``write_single_slice``: Figshare's layout, one slice per file, ``cjdata`` a group whose fields are datasets.
- ``write_struct_array``: a 1xN struct array as MATLAB writes it: each field of ``cjdata`` an (N, 1) dataset
  of object references to that slice's value, the values in the group ``#refs#``.

No timestamps are stored (HDF5 object times off) and the header's date is a parameter, so the bytes depend
only on the slices.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from qmlstudio_worker.problems.brain_tumor.mat_data import MriSlice

HEADER_BYTES = 512
DEFAULT_CREATED = "Thu Jan  1 00:00:00 2026"
# gzip level and byte shuffle for the image and mask chunks (one chunk per array).
GZIP_LEVEL = 9


def matlab_header(created: str = DEFAULT_CREATED) -> bytes:
    """MATLAB's 512-byte v7.3 header: 116 bytes of text, 8 of subsystem offset, version 0x0200, 'IM'."""
    text = f"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: {created} HDF5 schema 1.00 ."
    return text.encode("ascii").ljust(116, b" ") + b" " * 8 + b"\x00\x02" + b"IM" + b"\x00" * 384


def _create_file(path: Path) -> Any:
    import h5py  # type: ignore[import-untyped]

    fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
    fcpl.set_userblock(HEADER_BYTES)
    fcpl.set_obj_track_times(False)
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    # HDF5 1.10 format: a dataset of one chunk needs no chunk B-tree (a few hundred bytes less per array).
    fapl.set_libver_bounds(h5py.h5f.LIBVER_V110, h5py.h5f.LIBVER_LATEST)
    return h5py.File(h5py.h5f.create(str(path).encode(), h5py.h5f.ACC_TRUNC, fcpl=fcpl, fapl=fapl))


def _create_group(parent: Any, name: str) -> Any:
    import h5py

    gcpl = h5py.h5p.create(h5py.h5p.GROUP_CREATE)
    gcpl.set_obj_track_times(False)
    return h5py.Group(h5py.h5g.create(parent.id, name.encode(), gcpl=gcpl))


def _fields_attribute(group: Any) -> None:
    import h5py

    names = ["image", "label", "PID", "tumorBorder", "tumorMask"]
    group.attrs.create(
        "MATLAB_fields",
        [np.frombuffer(n.encode("ascii"), dtype="S1") for n in names],
        dtype=h5py.vlen_dtype(np.dtype("S1")),
    )


def _values(item: MriSlice, image_dtype: str) -> dict[str, tuple[np.ndarray[Any, Any], str]]:
    """Each field as (array in MATLAB's orientation, MATLAB class)."""
    image = np.asarray(item.image)
    if np.dtype(image_dtype).kind in "iu":
        image = np.rint(image)
    return {
        "image": (image.astype(image_dtype), np.dtype(image_dtype).name),
        "label": (np.array([[float(item.label)]]), "double"),
        "PID": (np.array([[ord(c) for c in item.pid]], dtype=np.uint16), "char"),
        "tumorBorder": (np.asarray(item.border, dtype=np.float64).reshape(1, -1), "double"),
        "tumorMask": (np.asarray(item.mask).astype(np.uint8), "logical"),
    }


def _write_array(group: Any, name: str, value: np.ndarray[Any, Any], matlab_class: str) -> Any:
    stored = value.T  # MATLAB column-major: HDF5 sees the dimensions reversed
    big = stored.size >= 64  # small arrays (label, PID) stay contiguous: a chunk index costs more
    dataset = group.create_dataset(
        name,
        data=stored,
        chunks=stored.shape if big else None,
        compression="gzip" if big else None,
        compression_opts=GZIP_LEVEL if big else None,
        shuffle=big and stored.dtype.itemsize > 1,
        track_times=False,
    )
    dataset.attrs["MATLAB_class"] = np.bytes_(matlab_class)
    if matlab_class in ("char", "logical"):
        dataset.attrs["MATLAB_int_decode"] = np.int32(2 if matlab_class == "char" else 1)
    return dataset


def write_single_slice(path: str | Path, item: MriSlice, *, image_dtype: str = "int16") -> None:
    """One slice in Figshare's layout (``cjdata`` a 1x1 struct)."""
    path = Path(path)
    with _create_file(path) as handle:
        group = _create_group(handle, "cjdata")
        group.attrs["MATLAB_class"] = np.bytes_("struct")
        _fields_attribute(group)
        for name, (value, matlab_class) in _values(item, image_dtype).items():
            _write_array(group, name, value, matlab_class)
    _write_header(path, DEFAULT_CREATED)


def _ref_name(index: int) -> str:
    """Short names for #refs# members: a, b, ..., z, ba, bb, ... (base 26)."""
    letters = ""
    while True:
        index, digit = divmod(index, 26)
        letters = chr(ord("a") + digit) + letters
        if index == 0:
            return letters


def write_struct_array(
    path: str | Path,
    items: Sequence[MriSlice],
    *,
    image_dtype: str = "int16",
    created: str = DEFAULT_CREATED,
) -> None:
    """The slices as one 1xN struct array ``cjdata`` in MATLAB's v7.3 layout."""
    import h5py

    path = Path(path)
    with _create_file(path) as handle:
        refs_group = _create_group(handle, "#refs#")
        references: dict[str, list[Any]] = {}
        count = 0
        for item in items:
            for name, (value, matlab_class) in _values(item, image_dtype).items():
                dataset = _write_array(refs_group, _ref_name(count), value, matlab_class)
                references.setdefault(name, []).append(dataset.ref)
                count += 1
        group = _create_group(handle, "cjdata")
        group.attrs["MATLAB_class"] = np.bytes_("struct")
        _fields_attribute(group)
        for name, refs in references.items():
            field = group.create_dataset(name, shape=(len(refs), 1), dtype=h5py.ref_dtype, track_times=False)
            field[:, 0] = refs
    _write_header(path, created)


def _write_header(path: Path, created: str) -> None:
    with path.open("r+b") as handle:
        handle.write(matlab_header(created))
