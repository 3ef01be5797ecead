"""Prediction from one MRI image (bio/predict.py): the type by content, each refusal with the spec's message,
and a real prediction with a bundle saved by model_store from a tiny model. Every image is generated here."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from conftest import WarmWorker
from PIL import Image

from qmlstudio_worker.problems.brain_tumor.image_check import predict_section
from qmlstudio_worker.problems.brain_tumor.model_store import save_bundle
from qmlstudio_worker.problems.brain_tumor.models import build_model
from qmlstudio_worker.problems.brain_tumor.predict import ImageRefusal, predict, read_image

CLASSES = ("meningioma", "glioma", "pituitary")
SECTION = predict_section()
MESSAGES = SECTION["image"]["messages"]


@pytest.fixture(autouse=True)
def _keep_torch_threads() -> Iterator[None]:
    """predict() sets one torch thread (right for its own worker process); the other tests keep theirs."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(0)
    model = build_model("FCN")
    directory = tmp_path_factory.mktemp("bundle")
    save_bundle(
        directory,
        model_name="FCN",
        model_type="classical",
        model=model,
        config={},
        input_size=32,
        classes=CLASSES,
    )
    return directory


def head_slice(size: int = 128, seed: int = 0) -> np.ndarray:
    """A synthetic MRI-like slice: a bright noisy ellipse with a brighter blob on a near-black background."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:size, 0:size] / size
    head = ((x - 0.5) / 0.36) ** 2 + ((y - 0.5) / 0.42) ** 2 <= 1
    image = rng.uniform(0, 8, (size, size))
    image[head] = rng.uniform(80, 150, int(head.sum()))
    image[((x - 0.6) ** 2 + (y - 0.45) ** 2) < 0.01] = 230
    return image


def write_picture(path: Path, pixels: np.ndarray, fmt: str) -> Path:
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(path, format=fmt)
    return path


def dicom_bytes(modality: str, pixels: np.ndarray, *, preamble: bool = True) -> bytes:
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian, MRImageStorage, generate_uid

    ds = Dataset()
    ds.Modality = modality
    ds.SOPClassUID = MRImageStorage
    ds.SOPInstanceUID = generate_uid()
    ds.Rows, ds.Columns = pixels.shape
    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = "MONOCHROME2"
    ds.BitsAllocated = 16
    ds.BitsStored = 16
    ds.HighBit = 15
    ds.PixelRepresentation = 0
    ds.PixelData = pixels.astype(np.uint16).tobytes()
    out = io.BytesIO()
    if preamble:
        ds.file_meta = FileMetaDataset()
        ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
        ds.file_meta.MediaStorageSOPClassUID = MRImageStorage
        ds.file_meta.MediaStorageSOPInstanceUID = ds.SOPInstanceUID
        ds.save_as(out, enforce_file_format=True)
    else:  # a bare implicit-VR data set, as old scanners wrote them: no preamble, no file meta
        ds.save_as(out, implicit_vr=True, little_endian=True)
    return out.getvalue()


def nifti_bytes(volume: np.ndarray) -> bytes:
    import nibabel

    return nibabel.Nifti1Image(volume.astype(np.int16), np.eye(4)).to_bytes()


def refusal_of(path: Path) -> str:
    with pytest.raises(ImageRefusal) as caught:
        read_image(path, SECTION)
    assert caught.value.field == "/file"
    return caught.value.message


def test_a_png_slice_is_predicted_with_a_probability_per_class(tmp_path: Path, bundle: Path) -> None:
    image = write_picture(tmp_path / "slice.png", head_slice(512), "PNG")
    result = predict(image, bundle, "slice.png")
    assert result["prediction"] in CLASSES
    assert set(result["probabilities"]) == set(CLASSES)
    assert sum(result["probabilities"].values()) == pytest.approx(1.0, abs=1e-5)
    assert result["prediction"] == max(result["probabilities"], key=result["probabilities"].get)
    assert result["image"] == {"name": "slice.png", "kind": "png", "width": 512, "height": 512}
    assert result["model_name"] == "FCN"


def test_different_images_get_different_probabilities(tmp_path: Path, bundle: Path) -> None:
    first = predict(write_picture(tmp_path / "a.png", head_slice(seed=1), "PNG"), bundle)
    shifted = head_slice(seed=2)
    shifted[20:60, 30:90] = 255
    second = predict(write_picture(tmp_path / "b.png", shifted, "PNG"), bundle)
    assert first["probabilities"] != second["probabilities"]


def test_a_jpeg_slice_is_read_by_content_whatever_its_name(tmp_path: Path, bundle: Path) -> None:
    image = write_picture(tmp_path / "scan.dicom", head_slice(), "JPEG")
    assert predict(image, bundle)["image"]["kind"] == "jpeg"


def test_a_colour_photo_is_not_an_mri(tmp_path: Path) -> None:
    y, x = np.mgrid[0:64, 0:64]
    photo = np.stack([x * 4, y * 4, 255 - x * 4], axis=2).astype(np.uint8)
    path = tmp_path / "holiday.png"
    Image.fromarray(photo).save(path)
    assert refusal_of(path) == MESSAGES["notMri"]


def test_a_dark_image_is_not_an_mri(tmp_path: Path) -> None:
    path = write_picture(tmp_path / "dark.jpg", np.full((64, 64), 5), "JPEG")
    assert refusal_of(path) == MESSAGES["notMri"]


@pytest.mark.parametrize("name", ["notes.png", "scan.nii", "scan.dicom"])
def test_a_file_of_another_type_is_refused_by_content(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("patient notes, not an image\n" * 20)
    assert refusal_of(path) == MESSAGES["type"]


def test_gzip_data_that_is_not_nifti_is_refused_as_a_type(tmp_path: Path) -> None:
    path = tmp_path / "scan.nii.gz"
    path.write_bytes(gzip.compress(b"plain text inside a gzip" * 40))
    assert refusal_of(path) == MESSAGES["type"]


def test_an_image_over_5_mb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(SECTION["image"]["maxBytes"]))
    assert SECTION["image"]["maxBytes"] == 5 * 1024 * 1024
    assert refusal_of(path) == MESSAGES["size"]


def test_a_broken_png_is_unreadable_in_plain_words_and_the_readers_detail_is_logged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    message = refusal_of(path)
    assert message == MESSAGES["unreadable"].replace("{reason}", "its PNG or JPEG data is damaged")
    # Pillow's own words ('cannot identify image file <_io.BytesIO object at 0x...>') only on stderr.
    assert "0x" not in message
    assert "BytesIO" not in message
    assert "cannot identify image file" in capsys.readouterr().err


def test_a_broken_gzip_is_unreadable_in_plain_words(tmp_path: Path) -> None:
    path = tmp_path / "scan.nii.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00" + b"\xff" * 400)
    assert refusal_of(path) == MESSAGES["unreadable"].replace("{reason}", "its gzip data is damaged")


def test_a_dicom_mr_image_is_predicted(tmp_path: Path, bundle: Path) -> None:
    path = tmp_path / "IM0001"
    path.write_bytes(dicom_bytes("MR", head_slice(64) * 10))
    result = predict(path, bundle, "IM0001")
    assert result["image"]["kind"] == "dicom"
    assert result["check"] is None  # the modality decides for DICOM, not the look check
    assert result["prediction"] in CLASSES


def test_a_dicom_without_preamble_is_recognised_too(tmp_path: Path, bundle: Path) -> None:
    path = tmp_path / "implicit.dcm"
    data = dicom_bytes("MR", head_slice(64), preamble=False)
    assert data[128:132] != b"DICM"
    path.write_bytes(data)
    assert predict(path, bundle)["image"]["kind"] == "dicom"


@pytest.mark.parametrize("modality", ["CT", "US"])
def test_a_dicom_that_is_not_mr_is_refused_naming_its_modality(tmp_path: Path, modality: str) -> None:
    path = tmp_path / "scan.dicom"
    path.write_bytes(dicom_bytes(modality, head_slice(32)))
    message = refusal_of(path)
    assert message == MESSAGES["dicomNotMr"].replace("{modality}", modality)
    assert f"modality is {modality}, not MR" in message


@pytest.mark.parametrize("compressed", [False, True], ids=["nii", "nii.gz"])
def test_a_nifti_volume_gives_its_middle_axial_slice(tmp_path: Path, bundle: Path, compressed: bool) -> None:
    volume = np.zeros((40, 48, 9))
    for z in range(9):
        volume[:, :, z] = z * 10  # each slice its own value: the middle one (z = 4) is 40
    volume[10:30, 12:36, 4] = 900
    data = nifti_bytes(volume)
    path = tmp_path / ("brain.nii.gz" if compressed else "brain.nii")
    path.write_bytes(gzip.compress(data) if compressed else data)
    image = read_image(path, SECTION)
    assert image.kind == "nifti"
    assert image.slice.shape == (48, 40)  # turned for display: rows are y
    assert set(np.unique(image.slice)) == {40.0, 900.0}
    assert predict(path, bundle)["image"]["kind"] == "nifti"


def run_cli(worker: WarmWorker, request: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    """The predict command in a process of its own: a child of the session's warm worker (conftest.py)."""
    done = worker.command("predict", request)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


@pytest.mark.integration
def test_the_predict_command_answers_one_result_line_or_one_error_line(
    tmp_path: Path, bundle: Path, warm_worker: WarmWorker
) -> None:
    image = write_picture(tmp_path / "slice.png", head_slice(), "PNG")
    code, lines = run_cli(
        warm_worker, {"image_path": str(image), "bundle_path": str(bundle), "file_name": "slice.png"}
    )
    assert code == 0
    assert [line["type"] for line in lines] == ["result"]
    assert lines[0]["data"]["prediction"] in CLASSES

    text = tmp_path / "notes.png"
    text.write_text("not an image")
    code, lines = run_cli(warm_worker, {"image_path": str(text), "bundle_path": str(bundle)})
    assert code == 2
    assert lines == [
        {
            "type": "error",
            "kind": "validation",
            "field": "/file",
            "message": MESSAGES["type"],
            **_extra(lines[0]),
        }
    ]


def _extra(line: dict[str, Any]) -> dict[str, Any]:
    """Fields the protocol adds to every line (version, time) beside the ones this test decides."""
    return {key: value for key, value in line.items() if key not in {"type", "kind", "field", "message"}}


def test_a_missing_bundle_is_refused_naming_the_model(tmp_path: Path) -> None:
    from qmlstudio_worker.errors import JobValidationError

    image = write_picture(tmp_path / "slice.png", head_slice(), "PNG")
    with pytest.raises(JobValidationError) as caught:
        predict(image, tmp_path / "no-such-bundle")
    assert caught.value.field == "/bundle_path"
    assert caught.value.message.startswith("The trained model could not be loaded")
