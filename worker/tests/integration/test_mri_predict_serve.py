"""The warm parent and the predict command: the parent loads a predict request's model without computing
(bio/predict.py preload_bundle) and every child inherits it; the answers equal a plain load's, and the parent
still runs jobs in threads afterwards."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from conftest import WarmWorker
from PIL import Image

from qmlstudio_worker.problems.brain_tumor.image_check import predict_section
from qmlstudio_worker.problems.brain_tumor.image_input import to_model_input
from qmlstudio_worker.problems.brain_tumor.model_store import load_bundle, save_bundle
from qmlstudio_worker.problems.brain_tumor.models import build_model
from qmlstudio_worker.problems.brain_tumor.predict import read_image

pytestmark = pytest.mark.integration


def ask(parent: WarmWorker, request: dict[str, Any]) -> list[dict[str, Any]]:
    """The child's protocol lines for one request (the parent's own lines left out)."""
    conn = parent.connect(request)
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    conn.close()
    lines = [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
    return [line for line in lines if "qmlstudio_serve" not in line]


def slice_png(path: Path) -> Path:
    rng = np.random.default_rng(4)
    y, x = np.mgrid[0:128, 0:128] / 128
    image = rng.uniform(0, 8, (128, 128))
    head = ((x - 0.5) / 0.36) ** 2 + ((y - 0.5) / 0.42) ** 2 <= 1
    image[head] = rng.uniform(80, 150, int(head.sum()))
    Image.fromarray(image.astype(np.uint8)).save(path)
    return path


def test_children_inherit_the_model_and_answer_as_a_plain_load_does(
    warm_worker: WarmWorker, tmp_path: Path
) -> None:
    process = warm_worker.process  # the session's warm parent (conftest.py)
    threads = len(os.listdir(f"/proc/{process.pid}/task"))
    torch.manual_seed(1)
    bundle = tmp_path / "bundle"
    save_bundle(
        bundle,
        model_name="densenet121",
        model_type="classical",
        model=build_model("densenet121"),
        config={},
        input_size=32,
        classes=("meningioma", "glioma", "pituitary"),
    )
    image = slice_png(tmp_path / "slice.png")
    request = {
        "command": "predict",
        "args": [],
        "input": {"image_path": str(image), "bundle_path": str(bundle), "file_name": "slice.png"},
        "stderr_path": str(tmp_path / "stderr.log"),
    }
    answers = [ask(warm_worker, request) for _ in range(2)]
    for lines in answers:
        assert [line["type"] for line in lines] == ["result"], lines
    first, second = (lines[0]["data"] for lines in answers)
    assert second["seconds"]["load_model"] < 0.05  # inherited, not loaded
    expected = load_bundle(bundle).predict_proba(
        to_model_input([read_image(image, predict_section()).slice], 32)
    )
    for answer in (first, second):
        got = [answer["probabilities"][name] for name in ("meningioma", "glioma", "pituitary")]
        np.testing.assert_allclose(got, expected[0], atol=1e-5)

    # The parent is still fit to fork jobs that use threads.
    job = ask(
        warm_worker,
        {
            "command": "run",
            "args": [],
            "input": {
                "kind": "self-test",
                "job_id": "p",
                "params": {"shots": 32},
                "output_dir": str(tmp_path),
            },
        },
    )
    assert job[-1]["type"] == "result"
    assert process.poll() is None
    assert len(os.listdir(f"/proc/{process.pid}/task")) <= threads  # no thread pool started in the parent
