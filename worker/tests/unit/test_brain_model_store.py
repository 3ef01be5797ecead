"""The brain tumor model bundle and its one preprocessing: what prediction (bio/predict.py) relies on."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from qmlstudio_worker.problems.brain_tumor.image_input import to_model_input
from qmlstudio_worker.problems.brain_tumor.model_store import load_bundle, read_card, save_bundle
from qmlstudio_worker.problems.brain_tumor.models import build_model

CLASSES = ("meningioma", "glioma", "pituitary")


def test_to_model_input_scales_each_image_robustly_and_resizes_by_area() -> None:
    flat = np.full((40, 30), 7.0)
    ramp = np.tile(np.arange(64, dtype=np.float64), (64, 1)) * 10.0 + 1000.0
    ramp[0, 0] = 1e9  # one hot pixel must not squash the contrast
    x = to_model_input([flat, ramp], 16)
    assert x.shape == (2, 1, 16, 16)
    assert x.dtype == torch.float32
    assert torch.all(x[0] == 0)  # a flat image has no contrast
    assert float(x.min()) >= 0.0
    assert float(x.max()) <= 1.0
    # area resize of a horizontal ramp: columns increase, the mean stays in the middle
    row = x[1, 0, 8]
    assert torch.all(row[1:] >= row[:-1])
    assert float(row[-1] - row[0]) > 0.8
    assert abs(float(x[1].mean()) - 0.5) < 0.05


def test_to_model_input_refuses_an_image_that_is_not_two_dimensional() -> None:
    with pytest.raises(ValueError, match="2-D"):
        to_model_input([np.zeros((8, 8, 3))], 8)


def test_a_saved_bundle_predicts_the_same_probabilities_after_loading(tmp_path) -> None:
    torch.manual_seed(0)
    model = build_model("FCN")
    model.eval()
    x = to_model_input([np.random.default_rng(1).random((20, 20)) for _ in range(3)], 32)
    with torch.no_grad():
        expected = torch.softmax(model(x), dim=1).numpy()
    card_path = save_bundle(
        tmp_path / "bundle",
        model_name="FCN",
        model_type="classical",
        model=model,
        config={},
        input_size=32,
        classes=CLASSES,
        extra={"weights": "random init"},
    )
    loaded = load_bundle(card_path.parent)
    assert (loaded.model_name, loaded.input_size, loaded.classes) == ("FCN", 32, list(CLASSES))
    assert read_card(card_path)["model_type"] == "classical"
    proba = loaded.predict_proba(x)
    assert proba.shape == (3, 3)
    np.testing.assert_allclose(proba, expected, atol=1e-6)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    with pytest.raises(ValueError, match="32x32"):
        loaded.predict_proba(torch.zeros((1, 1, 16, 16)))
