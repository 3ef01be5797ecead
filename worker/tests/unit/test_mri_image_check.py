"""The MRI look check of a PNG or JPEG (bio/image_check.py) on the shared cases of
tests/contracts/mri-image-check.json (the browser's src/engine/mri-image-check.ts runs the same ones) and on
the shipped example images."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import CONTRACTS_DIR, REPO_ROOT

from qmlstudio_worker.problems.brain_tumor.image_check import check_mri_pixels, load_rule, predict_section

FIXTURE = json.loads((CONTRACTS_DIR / "mri-image-check.json").read_text(encoding="utf-8"))
EXAMPLES = sorted((REPO_ROOT / "samples" / "mri-examples").glob("*.png"))


def pixels(case: dict[str, Any]) -> np.ndarray:
    rows = [np.frombuffer(bytes.fromhex(row), dtype=np.uint8) for row in case["rows"]]
    return np.stack(rows).reshape(case["height"], case["width"], case["channels"])


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda case: case["name"])
def test_the_shared_cases_get_their_outcome_and_measures(case: dict[str, Any]) -> None:
    check = check_mri_pixels(pixels(case), load_rule())
    expected = case["expected"]
    assert (check.ok, check.reason) == (expected["ok"], expected.get("reason"))
    assert check.channel_spread == pytest.approx(expected["channelSpread"], abs=1e-6)
    assert check.centre_mean == pytest.approx(expected["centreMean"], abs=1e-6)
    assert check.border_mean == pytest.approx(expected["borderMean"], abs=1e-6)


def test_the_fixture_covers_passing_colour_dark_and_flat_images() -> None:
    outcomes = {case["expected"].get("reason", "ok") for case in FIXTURE["cases"]}
    assert outcomes == {"ok", "colour", "dark", "flat"}


@pytest.mark.skipif(not EXAMPLES, reason="samples/mri-examples/ is not generated yet")
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_every_shipped_example_image_passes(path: Path) -> None:
    from PIL import Image

    with Image.open(path) as image:
        check = check_mri_pixels(np.asarray(image.convert("RGB")), load_rule())
    assert check.ok, check.measures()


def test_the_rule_and_its_messages_come_from_the_problem_file() -> None:
    section = predict_section()
    assert set(section["mriCheck"]) >= {"maxChannelSpread", "minCentreMean", "minCentreToBorderRatio"}
    assert section["image"]["messages"]["notMri"] == (
        "This doesn't look like an MRI scan. Please check your file and try again."
    )


def test_an_array_of_another_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="shape"):
        check_mri_pixels(np.zeros((4, 4, 5)), load_rule())
