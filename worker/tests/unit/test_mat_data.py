"""Brain tumor .mat datasets (bio/mat_data.py): MATLAB v7.3 in Figshare's one-slice layout and as a
struct array, v5 through scipy.io, zips of .mat files, and the refusals the user reads after
'Error parsing file: '."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import h5py
import numpy as np
import pytest
from scipy import io as scipy_io

from qmlstudio_worker.problems.brain_tumor import mat_data
from qmlstudio_worker.problems.brain_tumor.mat_data import (
    MatFormatError,
    MriSlice,
    class_name,
    open_mat_dataset,
)
from qmlstudio_worker.problems.brain_tumor.mat_write import (
    matlab_header,
    write_single_slice,
    write_struct_array,
)

# A non-square image, so a reader that forgets MATLAB's transpose fails.
IMAGE = np.arange(24, dtype=np.float32).reshape(4, 6)
MASK = np.zeros((4, 6), dtype=bool)
MASK[1:3, 2:5] = True
BORDER = np.array([[2.0, 1.0], [4.0, 1.0], [4.0, 2.0]], dtype=np.float32)


def make_slice(label: int = 2, pid: str = "100360", scale: float = 1.0) -> MriSlice:
    return MriSlice(image=IMAGE * scale, label=label, pid=pid, border=BORDER, mask=MASK)


def write_figshare_like(path: Path, *, label: float = 1.0, pid: str = "100360") -> None:
    """One slice written with h5py directly as MATLAB writes Figshare's files (not through mat_write)."""
    with h5py.File(path, "w", userblock_size=512) as handle:
        group = handle.create_group("cjdata")
        group.attrs["MATLAB_class"] = np.bytes_("struct")
        image = group.create_dataset("image", data=IMAGE.astype(np.int16).T)
        image.attrs["MATLAB_class"] = np.bytes_("int16")
        group.create_dataset("label", data=np.array([[label]]))
        codes = group.create_dataset("PID", data=np.array([[ord(c)] for c in pid], dtype=np.uint16))
        codes.attrs["MATLAB_class"] = np.bytes_("char")
        group.create_dataset("tumorBorder", data=BORDER.astype(np.float64).reshape(-1, 1))
        group.create_dataset("tumorMask", data=MASK.astype(np.uint8).T)
    with path.open("r+b") as handle:
        handle.write(matlab_header())


def save_v5(path: Path, slices: list[MriSlice]) -> None:
    fields = [
        ("image", object),
        ("label", object),
        ("PID", object),
        ("tumorBorder", object),
        ("tumorMask", object),
    ]
    struct = np.empty((1, len(slices)), dtype=fields)
    for i, item in enumerate(slices):
        struct[0, i] = (
            item.image.astype(np.int16),
            float(item.label),
            item.pid,
            item.border.astype(np.float64).reshape(1, -1),
            item.mask.astype(np.uint8),
        )
    scipy_io.savemat(path, {"cjdata": struct})


def assert_is_the_test_slice(found: MriSlice, *, label: int, pid: str, scale: float = 1.0) -> None:
    assert found.image.dtype == np.float32
    np.testing.assert_array_equal(found.image, IMAGE * scale)
    assert found.label == label
    assert found.pid == pid
    np.testing.assert_array_equal(found.border, BORDER)
    assert found.mask.dtype == bool
    np.testing.assert_array_equal(found.mask, MASK)


def test_reads_a_figshare_v73_file_and_undoes_matlabs_transpose(tmp_path: Path) -> None:
    path = tmp_path / "1.mat"
    write_figshare_like(path, label=3.0, pid="MR042")
    with open_mat_dataset(path) as dataset:
        assert dataset.format == "mat-v7.3"
        assert len(dataset) == 1
        assert dataset.labels().tolist() == [3]
        assert dataset.pids() == ["MR042"]
        assert_is_the_test_slice(dataset.slice(0), label=3, pid="MR042")


def test_reads_a_v73_struct_array_through_its_object_references(tmp_path: Path) -> None:
    path = tmp_path / "all.mat"
    write_struct_array(path, [make_slice(1, "p1"), make_slice(3, "p2", 2.0), make_slice(2, "p1", 3.0)])
    assert path.read_bytes().startswith(b"MATLAB 7.3 MAT-file")
    with h5py.File(path, "r") as handle:  # MATLAB's layout: (N, 1) reference fields into #refs#
        assert handle["cjdata"]["image"].shape == (3, 1)
        assert h5py.check_dtype(ref=handle["cjdata"]["label"].dtype) is h5py.Reference
        assert len(handle["#refs#"]) == 15
    with open_mat_dataset(path) as dataset:
        assert len(dataset) == 3
        assert dataset.labels().tolist() == [1, 3, 2]
        assert dataset.pids() == ["p1", "p2", "p1"]
        assert [s.label for s in dataset.images([2, 0])] == [2, 1]
        assert_is_the_test_slice(dataset.slice(1), label=3, pid="p2", scale=2.0)
        with pytest.raises(IndexError, match="out of range"):
            dataset.slice(3)


def test_the_writer_gives_the_same_bytes_for_the_same_slices(tmp_path: Path) -> None:
    slices = [make_slice(1, "a"), make_slice(2, "b")]
    write_struct_array(tmp_path / "x.mat", slices)
    write_struct_array(tmp_path / "y.mat", slices)
    digest = [hashlib.sha256((tmp_path / n).read_bytes()).hexdigest() for n in ("x.mat", "y.mat")]
    assert digest[0] == digest[1]


def test_reads_a_v5_struct_array_saved_by_scipy(tmp_path: Path) -> None:
    path = tmp_path / "v5.mat"
    save_v5(path, [make_slice(2, "100360"), make_slice(1, "200", 2.0)])
    with open_mat_dataset(path) as dataset:
        assert dataset.format == "mat-v5"
        assert dataset.labels().tolist() == [2, 1]
        assert dataset.pids() == ["100360", "200"]
        assert_is_the_test_slice(dataset.slice(0), label=2, pid="100360")
        assert_is_the_test_slice(dataset.slice(1), label=1, pid="200", scale=2.0)


def test_reads_a_zip_of_mat_files_in_natural_name_order(tmp_path: Path) -> None:
    members = {"2.mat": (2, "b"), "10.mat": (3, "c"), "1.mat": (1, "a")}
    archive = tmp_path / "set.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("data/", "")
        bundle.writestr("README.txt", "not a slice")
        for name, (label, pid) in members.items():
            if name == "10.mat":  # a v5 member beside the v7.3 ones
                save_v5(tmp_path / name, [make_slice(label, pid)])
            else:
                write_single_slice(tmp_path / name, make_slice(label, pid))
            bundle.write(tmp_path / name, f"data/{name}")
    with open_mat_dataset(archive) as dataset:
        assert dataset.format == "zip"
        assert dataset.labels().tolist() == [1, 2, 3]
        assert dataset.pids() == ["a", "b", "c"]
        assert [s.pid for s in dataset.images([2, 0, 1])] == ["c", "a", "b"]
        assert_is_the_test_slice(dataset.slice(2), label=3, pid="c")


def test_class_names_follow_the_labels() -> None:
    assert mat_data.CLASS_NAMES == ("meningioma", "glioma", "pituitary")
    assert [class_name(label) for label in (1, 2, 3)] == ["meningioma", "glioma", "pituitary"]


def refusal(path: Path) -> str:
    with pytest.raises(MatFormatError) as caught:
        open_mat_dataset(path).close()
    return str(caught.value)


def test_refuses_a_file_that_is_not_matlab(tmp_path: Path) -> None:
    path = tmp_path / "scan.mat"
    path.write_text("Date,Close\n2024-01-02,1\n")
    assert refusal(path).startswith("not a MATLAB file")


def test_refuses_files_without_cjdata(tmp_path: Path) -> None:
    h5 = tmp_path / "other.mat"
    with h5py.File(h5, "w", userblock_size=512) as handle:
        handle.create_dataset("x", data=np.zeros(3))
    assert refusal(h5) == "no cjdata struct in the file"
    v5 = tmp_path / "other5.mat"
    scipy_io.savemat(v5, {"x": np.zeros(3)})
    assert refusal(v5) == "no cjdata struct in the file"


def test_refuses_a_struct_without_a_field(tmp_path: Path) -> None:
    path = tmp_path / "nomask.mat"
    write_figshare_like(path)
    with h5py.File(path, "r+") as handle:
        del handle["cjdata"]["tumorMask"]
    assert refusal(path) == "cjdata has no tumorMask field"


def test_refuses_a_label_outside_1_to_3_naming_the_slice(tmp_path: Path) -> None:
    path = tmp_path / "bad.mat"
    write_struct_array(path, [make_slice(1), make_slice(4)])
    assert refusal(path) == "label must be 1, 2 or 3 at slice 2"
    single = tmp_path / "half.mat"
    write_figshare_like(single, label=1.5)
    assert refusal(single) == "label must be 1, 2 or 3 at slice 1"


def test_refuses_a_mask_of_another_size_when_the_slice_is_read(tmp_path: Path) -> None:
    path = tmp_path / "mask.mat"
    odd = MriSlice(image=IMAGE, label=1, pid="p", border=BORDER, mask=np.zeros((2, 2), dtype=bool))
    write_struct_array(path, [make_slice(), odd])
    with (
        open_mat_dataset(path) as dataset,
        pytest.raises(MatFormatError, match="tumorMask at slice 2 is 2x2"),
    ):
        dataset.slice(1)


def test_refuses_zips_without_mat_files_and_zip_bombs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as bundle:
        bundle.writestr("notes.txt", "hello")
    assert refusal(empty) == "the zip holds no .mat file"

    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("1.mat", b"\0" * 200_000)  # compresses to a few hundred bytes
    monkeypatch.setattr(mat_data, "MAX_ZIP_BYTES", 100_000)
    assert refusal(bomb).startswith("the zip unpacks to more than")

    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as bundle:
        bundle.writestr("1.mat", b"x")
        bundle.writestr("2.mat", b"x")
    monkeypatch.setattr(mat_data, "MAX_ZIP_MEMBERS", 1)
    assert refusal(many) == "the zip holds 2 files; at most 1 are read"


def test_refuses_a_damaged_v73_file(tmp_path: Path) -> None:
    whole = tmp_path / "whole.mat"
    write_struct_array(whole, [make_slice(1), make_slice(2)])
    cut = tmp_path / "cut.mat"
    cut.write_bytes(whole.read_bytes()[:2000])  # the header and part of the HDF5 metadata
    message = refusal(cut)
    assert message.startswith("the MATLAB v7.3 (HDF5) file")


def test_reads_a_single_v5_struct_saved_from_a_dict(tmp_path: Path) -> None:
    path = tmp_path / "one5.mat"
    item = make_slice(3, "MR7")
    scipy_io.savemat(
        path,
        {
            "cjdata": {
                "image": item.image.astype(np.int16),
                "label": 3.0,
                "PID": "MR7",
                "tumorBorder": item.border.astype(np.float64).reshape(1, -1),
                "tumorMask": item.mask,
            }
        },
    )
    with open_mat_dataset(path) as dataset:
        assert (dataset.format, len(dataset)) == ("mat-v5", 1)
        assert_is_the_test_slice(dataset.slice(0), label=3, pid="MR7")
