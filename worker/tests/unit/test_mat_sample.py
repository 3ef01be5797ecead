"""The synthetic brain tumor sample (worker/scripts/generate_brain_tumor_sample.py): the generator is
deterministic, the .mat file `make install` writes and the committed example PNGs are what the manifest
says, the sample has Figshare's counts, and everything is labelled synthetic."""

from __future__ import annotations

import hashlib
import io
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from qmlstudio_worker.problems.brain_tumor.mat_data import open_mat_dataset
from qmlstudio_worker.problems.brain_tumor.mat_write import write_struct_array
from qmlstudio_worker.problems.brain_tumor.synthetic_mri import (
    GLIOMA,
    MENINGIOMA,
    PITUITARY,
    make_patient,
    render_slice,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLES_DIR = REPO_ROOT / "samples"
sys.path.insert(0, str(REPO_ROOT / "worker" / "scripts"))

import generate_brain_tumor_sample as sample  # noqa: E402


def manifest() -> dict[str, Any]:
    result: dict[str, Any] = json.loads((SAMPLES_DIR / "manifest.json").read_text(encoding="utf-8"))
    return result


def mat_entry() -> dict[str, Any]:
    entry: dict[str, Any] = next(e for e in manifest()["mat_samples"] if e["file"] == sample.FILE)
    return entry


def test_the_generator_gives_the_same_bytes_for_a_seed(tmp_path: Path) -> None:
    write_struct_array(tmp_path / "a.mat", sample.generate(seed=7, limit=4))
    write_struct_array(tmp_path / "b.mat", sample.generate(seed=7, limit=4))
    write_struct_array(tmp_path / "c.mat", sample.generate(seed=8, limit=4))
    digest = {n: hashlib.sha256((tmp_path / f"{n}.mat").read_bytes()).hexdigest() for n in "abc"}
    assert digest["a"] == digest["b"]
    assert digest["a"] != digest["c"]


def test_the_plan_has_figshares_counts_and_keeps_a_patients_slices_together() -> None:
    plan = sample.plan(sample.DEFAULT_SEED)
    assert len(plan) == 3064
    assert Counter(p.label for p, _ in plan) == {1: 708, 2: 1426, 3: 930}
    pids = [p.pid for p, _ in plan]
    assert len(set(pids)) == 233
    runs = [pid for i, pid in enumerate(pids) if i == 0 or pids[i - 1] != pid]
    assert len(runs) == 233  # each patient's slices are one run
    assert all(len({p.label for p, _ in plan if p.pid == pid}) == 1 for pid in runs[:20])
    # The default training range (slices 1 to 100) holds all three classes.
    assert {p.label for p, _ in plan[:100]} == {1, 2, 3}


def test_the_classes_differ_where_the_docs_say() -> None:
    """Meningioma against the skull, glioma inside a hemisphere, pituitary small below the centre on the
    midline; the tumor brighter than the brain around it (glioma: its rim)."""
    rng = np.random.default_rng(3)
    for label in (MENINGIOMA, GLIOMA, PITUITARY):
        for _ in range(5):
            patient = make_patient(rng, label, "p")
            drawn = render_slice(patient, rng, 128)
            ys, xs = np.nonzero(drawn.mask)
            cx, cy = xs.mean() / 64 - 1, ys.mean() / 64 - 1
            area = drawn.mask.mean()
            head = patient.head
            reach = np.hypot((cx - head.cx) / (head.radius * head.elongation), (cy - head.cy) / head.radius)
            if label == MENINGIOMA:
                assert reach > 0.6
            elif label == GLIOMA:
                assert 0.1 < reach < 0.75
                assert area > 0.01
            else:
                assert abs(cx - head.cx) < 0.1
                assert cy - head.cy > 0.15
                assert area < 0.015
            ring = np.percentile(drawn.image[drawn.mask], 90)
            assert ring > 1.4 * np.median(drawn.image[~drawn.mask & (drawn.image > 100)])


def test_the_committed_examples_are_what_the_generator_draws() -> None:
    entries = manifest()["mri_examples"]
    drawn = sample.example_pngs(entries[0]["generator"]["seed"])
    assert [e["file"] for e in entries] == [f"mri-examples/{name}" for name in drawn]
    for number, entry in enumerate(entries, start=1):
        data = (SAMPLES_DIR / entry["file"]).read_bytes()
        assert data == drawn[entry["file"].split("/")[1]]
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        assert entry["label"] == f"Example {number}: {entry['class']} (synthetic)"
        assert entry["synthetic"] is True
        picture = Image.open(io.BytesIO(data))
        assert (picture.mode, picture.size) == ("L", (512, 512))
        assert "SYNTHETIC" in picture.info["Description"]


def test_the_mat_sample_is_labelled_synthetic() -> None:
    entry = mat_entry()
    assert entry["label"] == "Sample Dataset 1 (2020-2024) (synthetic)"
    assert entry["synthetic"] is True
    assert entry["source"].startswith("Synthetic")
    assert entry["generator"] == {"script": sample.SCRIPT, "seed": sample.DEFAULT_SEED}


def test_the_mat_file_make_install_wrote_is_the_manifests() -> None:
    path = SAMPLES_DIR / sample.FILE
    if not path.exists():
        pytest.fail(f"samples/{sample.FILE} is missing: `make install` writes it")
    entry = mat_entry()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
    assert path.read_bytes()[:19] == b"MATLAB 7.3 MAT-file"
    with open_mat_dataset(path) as dataset:
        assert dataset.format == "mat-v7.3"
        assert len(dataset) == entry["slices"] == 3064
        counts = Counter(int(v) for v in dataset.labels())
        assert [counts[1], counts[2], counts[3]] == [708, 1426, 930]
        assert len(set(dataset.pids())) == entry["patients"] == 233
        first = dataset.slice(0)
        assert list(first.image.shape) == entry["image_size"] == [128, 128]
        expected = sample.generate(sample.DEFAULT_SEED, limit=1)[0]
        np.testing.assert_array_equal(first.image, expected.image)
        np.testing.assert_array_equal(first.mask, expected.mask)
