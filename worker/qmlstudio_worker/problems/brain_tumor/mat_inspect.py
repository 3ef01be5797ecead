"""What the brain tumor Train sub-tab shows of a .mat dataset: ``python -m qmlstudio_worker mat-inspect``.

Input (JSON on stdin): ``{"path": str, "index": int (0-based, default 0), "rows": int (default 30)}``.

Output: one protocol line. ``result`` with data::

    {"count", "class_counts": {"meningioma", "glioma", "pituitary"}, "patients", "image_size": [H, W],
     "format": "mat-v7.3" | "mat-v5" | "zip",
     "image_data": [{"index" (1-based), "label", "label_name", "pid", "height", "width", "min", "max",
                     "mean"}, ...]  (the first ``rows`` slices),
     "slice": {"index" (1-based), "label_name", "thumbnail_png" (base64), "tumor_border": [[x, y], ...],
               "tumor_mask": {"area", "bbox": [x0, y0, x1, y1] | null, "rows": [[y, x_start, x_end], ...]}}}

``image_size`` is the first slice's. The thumbnail is the slice at ``THUMBNAIL_SIZE`` pixels square, gray,
the tumor mask tinted red over it and the border points in yellow. The mask is listed as runs of
consecutive pixels per row (x_end and the bbox inclusive), at most ``MAX_MASK_RUNS`` of them.

Or an ``error`` line of kind "validation" (exit code 2): field ``/path`` with the ``MatFormatError`` message
(what the user sees after 'Error parsing file: '), or ``/index`` / ``/rows`` for a bad request.
"""

from __future__ import annotations

import base64
import io
import json
from collections import Counter
from typing import Any

import numpy as np

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.problems.brain_tumor.image_input import robust_unit_range
from qmlstudio_worker.problems.brain_tumor.mat_data import (
    CLASS_NAMES,
    MatFormatError,
    MriSlice,
    class_name,
    open_mat_dataset,
)
from qmlstudio_worker.protocol import EXIT_OK, EXIT_VALIDATION_ERROR, Emitter

THUMBNAIL_SIZE = 256
MAX_MASK_RUNS = 200
DEFAULT_ROWS = 30
MAX_ROWS = 1000
MASK_TINT = (255, 0, 0)
MASK_OPACITY = 0.4
BORDER_COLOUR = (255, 255, 0)


def _integer(request: dict[str, Any], name: str, default: int, low: int, high: int | None) -> int:
    value = request.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise JobValidationError(f"/{name}: must be an integer", f"/{name}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise JobValidationError(f"/{name}: must be {bound}", f"/{name}")
    return value


def parse_request(text: str) -> tuple[str, int, int]:
    """(path, index, rows) of a request; JobValidationError naming the field."""
    try:
        request = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JobValidationError(f"the request is not valid JSON: {exc.msg}") from None
    if not isinstance(request, dict):
        raise JobValidationError("the request must be a JSON object")
    path = request.get("path")
    if not isinstance(path, str) or not path.strip():
        raise JobValidationError("/path: must be a non-empty string", "/path")
    return (
        path,
        _integer(request, "index", 0, 0, None),
        _integer(request, "rows", DEFAULT_ROWS, 1, MAX_ROWS),
    )


def _image_row(index: int, item: MriSlice) -> dict[str, Any]:
    height, width = item.image.shape
    return {
        "index": index + 1,
        "label": item.label,
        "label_name": class_name(item.label),
        "pid": item.pid,
        "height": int(height),
        "width": int(width),
        "min": round(float(item.image.min()), 3),
        "max": round(float(item.image.max()), 3),
        "mean": round(float(item.image.mean()), 3),
    }


def mask_runs(mask: np.ndarray[Any, Any], limit: int = MAX_MASK_RUNS) -> list[list[int]]:
    """[[y, x_start, x_end], ...]: the mask's runs of consecutive pixels, row by row (x_end inclusive)."""
    runs: list[list[int]] = []
    for y, row in enumerate(np.asarray(mask, dtype=bool)):
        edges = np.flatnonzero(np.diff(np.concatenate(([0], row.astype(np.int8), [0]))))
        for start, end in zip(edges[::2], edges[1::2], strict=True):
            if len(runs) == limit:
                return runs
            runs.append([y, int(start), int(end) - 1])
    return runs


def _mask_summary(mask: np.ndarray[Any, Any]) -> dict[str, Any]:
    ys, xs = np.nonzero(mask)
    bbox = [int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())] if xs.size else None
    return {"area": int(xs.size), "bbox": bbox, "rows": mask_runs(mask)}


def thumbnail_png(item: MriSlice, size: int = THUMBNAIL_SIZE) -> bytes:
    """The slice scaled to ``size`` square: gray, the mask tinted red, the border points yellow."""
    from PIL import Image, ImageDraw

    gray = Image.fromarray(np.rint(robust_unit_range(item.image) * 255).astype(np.uint8), mode="L")
    scaled = gray.resize((size, size), Image.Resampling.BILINEAR)
    picture = np.asarray(scaled.convert("RGB"), dtype=np.float32)
    mask = Image.fromarray(item.mask.astype(np.uint8) * 255, mode="L").resize(
        (size, size), Image.Resampling.NEAREST
    )
    inside = np.asarray(mask) > 0
    picture[inside] = picture[inside] * (1 - MASK_OPACITY) + np.array(MASK_TINT) * MASK_OPACITY
    image = Image.fromarray(np.rint(picture).astype(np.uint8), mode="RGB")
    height, width = item.image.shape
    draw = ImageDraw.Draw(image)
    for x, y in item.border:
        # Pixel centres: pixel (x, y) covers [x, x + 1) in the slice's coordinates.
        px, py = (float(x) + 0.5) * size / width, (float(y) + 0.5) * size / height
        draw.ellipse((px - 1, py - 1, px + 1, py + 1), fill=BORDER_COLOUR)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def inspect_dataset(path: str, index: int = 0, rows: int = DEFAULT_ROWS) -> dict[str, Any]:
    """The inspection result for the dataset at ``path`` (MatFormatError when it is not one)."""
    with open_mat_dataset(path) as dataset:
        count = len(dataset)
        if index >= count:
            raise JobValidationError(
                f"/index: slice {index + 1} does not exist: the dataset has {count} slices", "/index"
            )
        labels = Counter(int(v) for v in dataset.labels())
        shown = list(range(min(rows, count)))
        table = [_image_row(i, item) for i, item in zip(shown, dataset.images(shown), strict=True)]
        chosen = dataset.slice(index)
        return {
            "count": count,
            "class_counts": {name: labels[i] for i, name in enumerate(CLASS_NAMES, start=1)},
            "patients": len(set(dataset.pids())),
            "image_size": [table[0]["height"], table[0]["width"]],
            "format": dataset.format,
            "image_data": table,
            "slice": {
                "index": index + 1,
                "label_name": class_name(chosen.label),
                "thumbnail_png": base64.b64encode(thumbnail_png(chosen)).decode("ascii"),
                "tumor_border": [[round(float(x), 2), round(float(y), 2)] for x, y in chosen.border],
                "tumor_mask": _mask_summary(chosen.mask),
            },
        }


def run_mat_inspect(text: str, emit: Emitter) -> int:
    """The command: one result or validation error line; the exit code."""
    try:
        path, index, rows = parse_request(text)
        found = inspect_dataset(path, index, rows)
    except MatFormatError as exc:
        emit.error(str(exc), kind="validation", field="/path")
        return EXIT_VALIDATION_ERROR
    except JobValidationError as exc:
        emit.error(str(exc), kind="validation", field=exc.field)
        return EXIT_VALIDATION_ERROR
    emit.result(found)
    return EXIT_OK
