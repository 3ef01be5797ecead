"""Write tests/contracts/mri-image-check.json: the cases the MRI look check must decide alike in the browser
(src/engine/mri-image-check.ts) and on the worker (qmlstudio_worker/problems/brain_tumor/image_check.py).

Every case is generated here from a fixed seed, small (16 x 16 unless it says otherwise), and declares the
outcome it was made to have; the script refuses to write a case whose outcome under the schema's rule is
another. The measures are written too, so the TypeScript test checks that it computes the same numbers.
A real shipped example (samples/mri-examples/glioma-1.png, synthetic) is included downscaled when present.

    worker/.venv/bin/python worker/scripts/generate_mri_check_cases.py
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from qmlstudio_worker.problems.brain_tumor.image_check import check_mri_pixels, load_rule

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "contracts" / "mri-image-check.json"
EXAMPLE = ROOT / "samples" / "mri-examples" / "glioma-1.png"
SIZE = 16
rng = np.random.default_rng(13)


def head_on_black(size: int = SIZE, brightness: tuple[int, int] = (90, 170)) -> np.ndarray:
    """A bright noisy ellipse (the head) on a near-black noisy background: an MRI slice in miniature."""
    y, x = np.mgrid[0:size, 0:size]
    inside = ((x - (size - 1) / 2) / (size * 0.36)) ** 2 + ((y - (size - 1) / 2) / (size * 0.42)) ** 2 <= 1
    image = rng.integers(0, 9, (size, size))
    image[inside] = rng.integers(brightness[0], brightness[1], int(inside.sum()))
    return image.astype(np.uint8)


def colour_photo() -> np.ndarray:
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    return np.stack([x * 16, y * 16, 255 - x * 16], axis=2).clip(0, 255).astype(np.uint8)


def with_channels(gray: np.ndarray, channels: int, tint: tuple[int, int, int] = (0, 0, 0)) -> np.ndarray:
    rgb = np.stack([gray.astype(int) + t for t in tint], axis=2).clip(0, 255)
    if channels == 3:
        return rgb.astype(np.uint8)
    if channels == 4:
        return np.concatenate([rgb, np.full((*gray.shape, 1), 255)], axis=2).astype(np.uint8)
    return np.stack([gray, np.full(gray.shape, 255)], axis=2).astype(np.uint8)


def real_example() -> np.ndarray | None:
    if not EXAMPLE.exists():
        return None
    from PIL import Image

    with Image.open(EXAMPLE) as image:
        return np.asarray(image.convert("L").resize((32, 32), Image.Resampling.BOX))


CASES: list[tuple[str, str, Callable[[], np.ndarray | None], str | None]] = [
    (
        "mri-like gray",
        "A bright noisy ellipse on a near-black noisy background, 1 channel.",
        head_on_black,
        None,
    ),
    (
        "mri-like RGBA",
        "The same kind of slice as canvas ImageData gives it: 4 channels, R = G = B, alpha 255.",
        lambda: with_channels(head_on_black(), 4),
        None,
    ),
    (
        "mri-like gray + alpha",
        "A slice as gray + alpha (2 channels); the alpha is ignored.",
        lambda: with_channels(head_on_black(), 2),
        None,
    ),
    (
        "slightly tinted mri",
        "A slice with a faint warm tint (R + 8, B - 4), as a phone photo of a film gives: still gray enough.",
        lambda: with_channels(head_on_black(), 3, (8, 0, -4)),
        None,
    ),
    (
        "dim but contrasted mri",
        "A dim slice (head 45..75) on black: dim, yet bright enough and far brighter than its border.",
        lambda: head_on_black(brightness=(45, 76)),
        None,
    ),
    (
        "colour photo",
        "A colour gradient (R by column, G by row, B falling): not gray.",
        colour_photo,
        "colour",
    ),
    (
        "colour photo RGBA",
        "The colour gradient as RGBA ImageData.",
        lambda: np.concatenate([colour_photo(), np.full((SIZE, SIZE, 1), 255, np.uint8)], axis=2),
        "colour",
    ),
    (
        "blank black",
        "All pixels 0: a blank or lens-capped image.",
        lambda: np.zeros((SIZE, SIZE), np.uint8),
        "dark",
    ),
    (
        "dark noise",
        "Noise between 0 and 20 everywhere: a very dark image.",
        lambda: rng.integers(0, 21, (SIZE, SIZE)).astype(np.uint8),
        "dark",
    ),
    (
        "blank white",
        "All pixels 255: centre no brighter than the border.",
        lambda: np.full((SIZE, SIZE), 255, np.uint8),
        "flat",
    ),
    (
        "uniform gray",
        "All pixels 128, as RGB.",
        lambda: np.full((SIZE, SIZE, 3), 128, np.uint8),
        "flat",
    ),
    (
        "gray document",
        "A light page (220..235) with dark text-like rows: gray and bright, not brighter in the centre.",
        lambda: np.where(np.arange(SIZE)[:, None] % 3 == 0, 90, rng.integers(220, 236, (SIZE, SIZE))).astype(
            np.uint8
        ),
        "flat",
    ),
    (
        "real example glioma-1 (32 x 32)",
        "samples/mri-examples/glioma-1.png (synthetic) reduced to 32 x 32 by box averaging, gray.",
        real_example,
        None,
    ),
]


def encode(pixels: np.ndarray) -> dict[str, Any]:
    array = pixels if pixels.ndim == 3 else pixels[:, :, None]
    height, width, channels = array.shape
    return {
        "width": width,
        "height": height,
        "channels": channels,
        "rows": [bytes(row.reshape(-1).tolist()).hex() for row in array],
    }


def main() -> None:
    rule = load_rule()
    cases = []
    for name, description, make, reason in CASES:
        pixels = make()
        if pixels is None:
            print(f"skipped {name}: {EXAMPLE} is absent")
            continue
        check = check_mri_pixels(pixels, rule)
        if check.reason != reason:
            raise SystemExit(f"{name}: made to be {reason or 'ok'} but the rule says {check.reason or 'ok'}")
        expected: dict[str, Any] = {"ok": check.ok}
        if check.reason:
            expected["reason"] = check.reason
        expected.update(
            channelSpread=round(check.channel_spread, 6),
            centreMean=round(check.centre_mean, 6),
            borderMean=round(check.border_mean, 6),
        )
        cases.append({"name": name, "description": description, **encode(pixels), "expected": expected})
    fixture = {
        "description": (
            "Cases of the MRI look check of a PNG or JPEG (spec workspace.md section 5; the rule is "
            "schemas/problems/brain-tumor.json#/predict/mriCheck). Generated with a fixed seed by "
            "worker/scripts/generate_mri_check_cases.py, each made to have its expected outcome. 'rows' are "
            "the pixel rows, top to bottom, as hex bytes (channels values per pixel, 0..255). Tested by "
            "src/engine/mri-image-check.test.ts and worker/tests/unit/test_mri_image_check.py."
        ),
        "cases": cases,
    }
    OUT.write_text(json.dumps(fixture, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
