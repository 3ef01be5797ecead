"""Does a PNG or JPEG look like an MRI slice? The grayscale and centre-brightness check of the spec.

The rule's numbers are data: ``predict.mriCheck`` in ``schemas/problems/brain-tumor.json``. The browser
applies the same rule to canvas pixels (``src/engine/mri-image-check.ts``) before uploading; this module
applies it on the worker, where it decides. ``tests/contracts/mri-image-check.json`` holds the cases both
must agree on.

Measures, on the 0..255 scale of an 8-bit image (a 16-bit one is divided by 257, as a browser shows it):

- ``channel_spread``: the mean over all pixels of max(R, G, B) - min(R, G, B); 0 for a grayscale image.
  An MRI slice is gray, a photo is not.
- ``centre_mean``: the mean brightness ((R + G + B) / 3) of the centre box, the middle ``centreFraction``
  of the height and of the width: ``y0 = floor(H * (1 - f) / 2)`` to ``H - y0`` (likewise for x).
- ``border_mean``: the mean brightness of the frame ``b = max(1, floor(min(H, W) * borderFraction))``
  pixels wide along the four edges. An MRI slice is a bright head on a dark background.

The image passes when ``channel_spread <= maxChannelSpread`` (else reason "colour"), ``centre_mean >=
minCentreMean`` (else "dark") and ``centre_mean >= minCentreToBorderRatio * border_mean`` (else "flat"),
checked in that order. An alpha channel is ignored.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from qmlstudio_worker.problem_schemas import resolve_schemas_dir

PROBLEM_ID = "brain-tumor"
Reason = Literal["colour", "dark", "flat"]


@dataclass(frozen=True)
class MriCheckRule:
    max_channel_spread: float
    centre_fraction: float
    border_fraction: float
    min_centre_mean: float
    min_centre_to_border_ratio: float

    @classmethod
    def from_schema(cls, rule: dict[str, Any]) -> MriCheckRule:
        return cls(
            max_channel_spread=float(rule["maxChannelSpread"]),
            centre_fraction=float(rule["centreFraction"]),
            border_fraction=float(rule["borderFraction"]),
            min_centre_mean=float(rule["minCentreMean"]),
            min_centre_to_border_ratio=float(rule["minCentreToBorderRatio"]),
        )


@dataclass(frozen=True)
class MriCheck:
    ok: bool
    reason: Reason | None
    channel_spread: float
    centre_mean: float
    border_mean: float

    def measures(self) -> dict[str, float]:
        return {
            "channel_spread": round(self.channel_spread, 3),
            "centre_mean": round(self.centre_mean, 3),
            "border_mean": round(self.border_mean, 3),
        }


def predict_section(schemas_dir: Path | None = None) -> dict[str, Any]:
    """The ``predict`` block of the brain tumor problem file (rule and messages)."""
    directory = schemas_dir or resolve_schemas_dir(None)
    problem = json.loads((directory / "problems" / f"{PROBLEM_ID}.json").read_text(encoding="utf-8"))
    section = problem.get("predict")
    if not isinstance(section, dict):
        raise ValueError(f"problems/{PROBLEM_ID}.json has no predict section")
    return section


def load_rule(schemas_dir: Path | None = None) -> MriCheckRule:
    return MriCheckRule.from_schema(predict_section(schemas_dir)["mriCheck"])


def check_mri_pixels(pixels: np.ndarray[Any, Any], rule: MriCheckRule) -> MriCheck:
    """Apply ``rule`` to ``pixels`` (0..255): (H, W) gray, (H, W, 2) gray+alpha, (H, W, 3|4) RGB(A)."""
    array = np.asarray(pixels, dtype=np.float64)
    if array.ndim == 2:
        array = array[:, :, None]
    if array.ndim != 3 or array.shape[2] not in (1, 2, 3, 4) or 0 in array.shape:
        raise ValueError(f"pixels must be (H, W) or (H, W, 1..4), got shape {np.shape(pixels)}")
    colour = array[:, :, :3] if array.shape[2] >= 3 else array[:, :, :1]
    height, width = colour.shape[:2]

    spread = float((colour.max(axis=2) - colour.min(axis=2)).mean())
    brightness = colour.mean(axis=2)

    y0 = math.floor(height * (1 - rule.centre_fraction) / 2)
    x0 = math.floor(width * (1 - rule.centre_fraction) / 2)
    centre = brightness[y0 : height - y0, x0 : width - x0]
    centre_mean = float(centre.mean()) if centre.size else 0.0

    frame = max(1, math.floor(min(height, width) * rule.border_fraction))
    inner = np.zeros((height, width), dtype=bool)
    inner[frame : height - frame, frame : width - frame] = True
    border = brightness[~inner]
    border_mean = float(border.mean()) if border.size else 0.0

    reason: Reason | None = None
    if spread > rule.max_channel_spread:
        reason = "colour"
    elif centre_mean < rule.min_centre_mean:
        reason = "dark"
    elif centre_mean < rule.min_centre_to_border_ratio * border_mean:
        reason = "flat"
    return MriCheck(reason is None, reason, spread, centre_mean, border_mean)
