"""A tumor class from one MRI image: ``python -m qmlstudio_worker predict``.

Input (JSON on stdin): ``{"image_path": str, "bundle_path": str, "file_name": str}``: the uploaded (or
fetched) image, the trained model's bundle (``bio/model_store.py``: its directory or ``model.json``) and the
name the user gave the file (shown back; never used to decide the type).

The type is decided by content, never by the name: PNG and JPEG (Pillow), DICOM (pydicom; the 'DICM'
preamble at byte 128, or a bare data set starting with group 0002 or 0008; its Modality must be MR),
NIfTI-1/2 single files (nibabel), gzip-compressed or not (the middle axial slice of the first volume).
A PNG or JPEG must pass the MRI look check (``bio/image_check.py``). Every refusal is the spec's message
from ``schemas/problems/brain-tumor.json`` (``predict.image.messages``).

Output: one protocol line. ``result`` ``{"prediction": class, "probabilities": {class: p}, "model_name",
"image": {"kind", "width", "height"}, "check": measures | null, "seconds": {...}}`` and exit 0; or
``error`` of kind "validation", field "/file" (the image) or "/bundle_path", exit 2; or "runtime", exit 1.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.file_store import local_output
from qmlstudio_worker.problems.brain_tumor.image_check import (
    MriCheck,
    MriCheckRule,
    check_mri_pixels,
    predict_section,
)
from qmlstudio_worker.protocol import EXIT_OK, EXIT_RUNTIME_ERROR, EXIT_VALIDATION_ERROR, Emitter

Kind = Literal["png", "jpeg", "dicom", "nifti"]
FILE_FIELD = "/file"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_SIGNATURE = b"\xff\xd8\xff"
GZIP_SIGNATURE = b"\x1f\x8b"
# A decompressed NIfTI volume larger than this is refused (a 5 MB .nii.gz can hold a gigabyte of zeros).
MAX_NIFTI_BYTES = 256 * 1024 * 1024
# Pillow's own bomb limit is a warning until twice its default; a photo has far fewer pixels than this.
MAX_PIXELS = 40_000_000


@dataclass(frozen=True)
class MriImage:
    kind: Kind
    slice: np.ndarray[Any, Any]  # (H, W) float64 intensities: what the model reads
    check: MriCheck | None  # PNG and JPEG only


class ImageRefusal(JobValidationError):
    """The image is refused with one of the spec's messages (field /file)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, FILE_FIELD)


class Messages:
    """``predict.image.messages`` of the problem file, with {placeholders} filled in."""

    def __init__(self, messages: dict[str, str]) -> None:
        self.messages = messages

    def refusal(self, key: str, detail: object = None, **values: str) -> ImageRefusal:
        """The spec's message ``key`` with ``values`` filled in. ``detail`` (a library's exception) is
        logged on stderr, never shown: its text names Python internals ('<_io.BytesIO object at 0x...>')."""
        if detail is not None:
            print(f"predict refused the image ({key}): {detail!r}", file=sys.stderr)
        text = self.messages[key]
        for name, value in values.items():
            text = text.replace("{" + name + "}", value)
        return ImageRefusal(text)


def sniff(head: bytes) -> Kind | Literal["gzip"] | None:
    """What the first bytes (at least 352) say the file is; "gzip" needs decompressing first."""
    if head.startswith(PNG_SIGNATURE):
        return "png"
    if head.startswith(JPEG_SIGNATURE):
        return "jpeg"
    if head[128:132] == b"DICM":
        return "dicom"
    if head.startswith(GZIP_SIGNATURE):
        return "gzip"
    if is_nifti(head):
        return "nifti"
    # A DICOM data set without the 128-byte preamble starts with its file meta (group 0002) or, written
    # implicitly, with its identifying group 0008; reading it decides.
    if head[:2] in (b"\x02\x00", b"\x08\x00"):
        return "dicom"
    return None


def is_nifti(head: bytes) -> bool:
    """A single-file NIfTI-1 ('n+1' at 344, header size 348) or NIfTI-2 ('n+2' at 4, header size 540)."""
    size = head[:4]
    nifti1 = size in (b"\x5c\x01\x00\x00", b"\x00\x00\x01\x5c") and head[344:348] == b"n+1\x00"
    nifti2 = size in (b"\x1c\x02\x00\x00", b"\x00\x00\x02\x1c") and head[4:8] == b"n+2\x00"
    return nifti1 or nifti2


def gunzip(data: bytes, messages: Messages) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            out = stream.read(MAX_NIFTI_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise messages.refusal("unreadable", exc, reason="its gzip data is damaged") from None
    if len(out) > MAX_NIFTI_BYTES:
        raise messages.refusal("unreadable", reason=f"over {MAX_NIFTI_BYTES // 2**20} MB uncompressed")
    return out


def read_nifti(data: bytes, messages: Messages) -> np.ndarray[Any, Any]:
    """The middle axial slice of the first volume, turned so the front of the head is up."""
    import nibabel

    image_class = nibabel.Nifti2Image if data[4:8] == b"n+2\x00" else nibabel.Nifti1Image
    try:
        volume = np.asarray(image_class.from_bytes(data).dataobj, dtype=np.float64)
    except Exception as exc:  # nibabel raises many kinds for a broken header or short data
        raise messages.refusal("unreadable", exc, reason="its NIfTI header or data is damaged") from None
    while volume.ndim > 3:  # (x, y, z, t, ...): the first volume
        volume = volume[..., 0]
    if volume.ndim == 3:
        volume = volume[:, :, volume.shape[2] // 2]
    if volume.ndim != 2 or min(volume.shape) < 2:
        raise messages.refusal("unreadable", reason=f"NIfTI data of shape {volume.shape} holds no image")
    return np.rot90(volume)


def read_dicom(data: bytes, messages: Messages) -> np.ndarray[Any, Any]:
    import pydicom
    from pydicom.errors import InvalidDicomError

    try:
        dataset = pydicom.dcmread(io.BytesIO(data), force=True)
    except (InvalidDicomError, ValueError, EOFError, OSError, KeyError, TypeError) as exc:
        raise messages.refusal("type", exc) from None
    if "PixelData" not in dataset:
        # A bare byte stream that pydicom forced into a data set of nonsense has no pixels: not a DICOM image.
        raise messages.refusal("type")
    if "TransferSyntaxUID" not in getattr(dataset, "file_meta", {}):
        # A bare data set names no transfer syntax: use the encoding it was just read with.
        from pydicom.dataset import FileMetaDataset
        from pydicom.uid import ExplicitVRBigEndian, ExplicitVRLittleEndian, ImplicitVRLittleEndian

        implicit, little = dataset.original_encoding
        dataset.file_meta = FileMetaDataset()
        dataset.file_meta.TransferSyntaxUID = (
            ImplicitVRLittleEndian if implicit else ExplicitVRLittleEndian if little else ExplicitVRBigEndian
        )
    modality = str(dataset.get("Modality", "") or "").strip().upper()
    if modality != "MR":
        raise messages.refusal("dicomNotMr", modality=modality or "missing")
    try:
        pixels = np.asarray(dataset.pixel_array, dtype=np.float64)
    except Exception as exc:  # compressed pixel data without a decoder, a truncated frame...
        raise messages.refusal("unreadable", exc, reason="its DICOM pixel data cannot be decoded") from None
    samples = int(dataset.get("SamplesPerPixel", 1) or 1)
    if samples > 1:
        pixels = pixels.mean(axis=-1)
    if pixels.ndim == 3:
        pixels = pixels[pixels.shape[0] // 2]  # the middle frame of a multi-frame image
    if str(dataset.get("PhotometricInterpretation", "")) == "MONOCHROME1":
        pixels = pixels.max() - pixels  # MONOCHROME1 shows low values white
    if pixels.ndim != 2 or min(pixels.shape) < 2:
        raise messages.refusal("unreadable", reason=f"DICOM pixel data of shape {pixels.shape}")
    return pixels


def read_picture(
    data: bytes, messages: Messages, rule: MriCheckRule
) -> tuple[np.ndarray[Any, Any], MriCheck]:
    """A PNG or JPEG as 0..255 pixels (16-bit ones divided by 257, as browsers show them); its MRI check."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as opened:
            if opened.width * opened.height > MAX_PIXELS:
                raise messages.refusal(
                    "unreadable", reason=f"{opened.width} x {opened.height} pixels is too many"
                )
            image = ImageOps.exif_transpose(opened)
            image.load()
    except ImageRefusal:
        raise
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise messages.refusal("unreadable", exc, reason="its PNG or JPEG data is damaged") from None
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        pixels = np.clip(np.asarray(image, dtype=np.float64), 0, 65535) / 257.0
    elif image.mode == "F":
        pixels = np.clip(np.asarray(image, dtype=np.float64), 0, 255)
    elif image.mode in ("L", "LA", "RGB", "RGBA"):
        pixels = np.asarray(image, dtype=np.float64)
    else:
        pixels = np.asarray(
            image.convert("RGBA" if "A" in image.mode or image.mode == "P" else "RGB"), np.float64
        )
    check = check_mri_pixels(pixels, rule)
    if not check.ok:
        raise messages.refusal("notMri")
    gray = pixels if pixels.ndim == 2 else pixels[:, :, : 3 if pixels.shape[2] >= 3 else 1].mean(axis=2)
    return gray, check


def read_image(path: Path, section: dict[str, Any]) -> MriImage:
    """The image at ``path`` as the model's 2-D slice, its type decided by content; ImageRefusal otherwise."""
    messages = Messages(section["image"]["messages"])
    max_bytes = int(section["image"]["maxBytes"])
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise messages.refusal("size")
        data = path.read_bytes()
    except OSError as exc:
        raise messages.refusal("unreadable", exc, reason="the file could not be opened") from None
    kind = sniff(data[:1024])
    if kind == "gzip":
        data = gunzip(data, messages)
        if not is_nifti(data[:1024]):
            raise messages.refusal("type")
        kind = "nifti"
    if kind is None:
        raise messages.refusal("type")
    if kind in ("png", "jpeg"):
        gray, check = read_picture(data, messages, MriCheckRule.from_schema(section["mriCheck"]))
        return MriImage(kind, gray, check)
    if kind == "dicom":
        return MriImage(kind, read_dicom(data, messages), None)
    return MriImage(kind, read_nifti(data, messages), None)


#: Models the warm parent loaded before forking this worker (serve.py), by model card path and mtime.
_PRELOADED: dict[tuple[str, int], Any] = {}
MAX_PRELOADED = 4


def _card_key(bundle_path: Path) -> tuple[str, int]:
    card = bundle_path / "model.json" if bundle_path.is_dir() else bundle_path
    return str(card.resolve()), card.stat().st_mtime_ns


def preload_bundle(request_text: str) -> None:
    """For the warm parent (serve.py), before it forks the worker of a predict request: load the request's
    torch model without computing anything, so the worker inherits it instead of spending most of its
    time loading it (each worker is a fresh fork). The parent must run no torch operation (a thread pool
    started before a fork breaks the children): the modules are built on the meta device and the saved
    tensors assigned to them, which runs none. Failures are left to the worker, which loads it itself."""
    import torch

    from qmlstudio_worker.problems.brain_tumor.model_store import load_bundle, read_card

    bundle_path = Path(json.loads(request_text)["bundle_path"])
    key = _card_key(bundle_path)
    if key in _PRELOADED or read_card(bundle_path).get("framework") != "torch":
        return
    with torch.device("meta"):
        bundle = load_bundle(bundle_path)
    while len(_PRELOADED) >= MAX_PRELOADED:
        _PRELOADED.pop(next(iter(_PRELOADED)))
    _PRELOADED[key] = bundle


def parse_request(text: str) -> tuple[Path, Path, str]:
    try:
        request = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JobValidationError(f"the prediction request is not valid JSON: {exc.msg}") from None
    if not isinstance(request, dict):
        raise JobValidationError("the prediction request must be a JSON object")
    for name in ("image_path", "bundle_path"):
        if not isinstance(request.get(name), str) or not request[name]:
            raise JobValidationError(f"/{name}: must be a non-empty string", f"/{name}")
    file_name = request.get("file_name")
    return (
        Path(request["image_path"]),
        Path(request["bundle_path"]),
        file_name if isinstance(file_name, str) else "",
    )


def predict(image_path: Path, bundle_path: Path, file_name: str = "") -> dict[str, Any]:
    import torch

    from qmlstudio_worker.problems.brain_tumor.image_input import to_model_input
    from qmlstudio_worker.problems.brain_tumor.model_store import load_bundle

    # One image needs no thread pool: starting one in each fresh (forked) worker costs seconds on a busy
    # CPU, the forward pass of one image on one thread tens of milliseconds.
    torch.set_num_threads(1)
    started = time.perf_counter()
    image = read_image(image_path, predict_section())
    read_at = time.perf_counter()
    try:
        preloaded = _PRELOADED.get(_card_key(bundle_path))
        bundle = preloaded or load_bundle(bundle_path)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise JobValidationError(f"The trained model could not be loaded: {exc}", "/bundle_path") from None
    loaded_at = time.perf_counter()
    x = to_model_input([image.slice], bundle.input_size)
    try:
        probabilities = bundle.predict_proba(x)[0]
    except Exception:  # a meta tensor left in the inherited model fails its forward pass: load it plainly
        if preloaded is None:
            raise
        bundle = load_bundle(bundle_path)
        probabilities = bundle.predict_proba(x)[0]
    done_at = time.perf_counter()
    best = int(np.argmax(probabilities))
    height, width = image.slice.shape
    return {
        "prediction": bundle.classes[best],
        "probabilities": {
            name: round(float(p), 6) for name, p in zip(bundle.classes, probabilities, strict=True)
        },
        "model_name": bundle.model_name,
        "image": {"name": file_name, "kind": image.kind, "width": int(width), "height": int(height)},
        "check": image.check.measures() if image.check else None,
        "seconds": {
            "read": round(read_at - started, 4),
            "load_model": round(loaded_at - read_at, 4),
            "predict": round(done_at - loaded_at, 4),
        },
    }


def run_prediction(text: str, emit: Emitter) -> int:
    """The ``predict`` command: one result or error line; the exit code."""
    try:
        image_path, bundle_path, file_name = parse_request(text)
        # A model trained on another machine comes from the file store first.
        bundle_path = local_output(bundle_path, "/bundle_path")
        emit.result(predict(image_path, bundle_path, file_name))
    except JobValidationError as exc:
        emit.error(exc.message, kind="validation", field=exc.field)
        return EXIT_VALIDATION_ERROR
    except Exception as exc:  # a model that fails on this input: the server says so, it never crashes
        emit.error(f"The prediction failed: {type(exc).__name__}: {exc}", kind="runtime")
        return EXIT_RUNTIME_ERROR
    return EXIT_OK
