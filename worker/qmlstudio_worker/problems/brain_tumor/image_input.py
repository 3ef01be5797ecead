"""The one preprocessing of an MRI slice for the brain tumor models, shared by training and prediction.

Each image (a 2-D array of raw intensities, any size) is scaled on its own: a robust min-max maps the
0.5th percentile to 0 and the 99.5th to 1 and clips, so one hot pixel or a scanner's intensity range does
not decide the contrast; then an area resize (mean of the covered pixels) to ``size`` x ``size``. The
result is a float32 tensor of shape (n, 1, size, size) in [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

LOW_PERCENTILE = 0.5
HIGH_PERCENTILE = 99.5


def robust_unit_range(image: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.float32]]:
    """``image`` scaled to [0, 1] between its 0.5th and 99.5th percentiles (all zeros when flat)."""
    values = np.nan_to_num(np.asarray(image, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    low, high = np.percentile(values, [LOW_PERCENTILE, HIGH_PERCENTILE])
    if high - low <= 1e-12:
        return np.zeros(values.shape, dtype=np.float32)
    scaled: np.ndarray[Any, np.dtype[np.float32]] = np.clip((values - low) / (high - low), 0.0, 1.0).astype(
        np.float32
    )
    return scaled


def to_model_input(images: Sequence[np.ndarray[Any, Any]], size: int) -> Any:
    """The models' input tensor (n, 1, size, size), float32 in [0, 1], from 2-D images of any size."""
    import torch
    from torch.nn import functional

    if size < 1:
        raise ValueError(f"size must be a positive number of pixels, got {size}")
    out = torch.empty((len(images), 1, size, size), dtype=torch.float32)
    for i, image in enumerate(images):
        array = np.asarray(image)
        if array.ndim != 2 or 0 in array.shape:
            raise ValueError(
                f"image {i} must be a non-empty 2-D (height, width) array, got shape {array.shape}"
            )
        scaled = torch.from_numpy(robust_unit_range(array))[None, None]
        # "area" is adaptive average pooling: each output pixel is the mean of the input pixels it covers.
        out[i] = functional.interpolate(scaled, size=(size, size), mode="area")[0]
    return out
