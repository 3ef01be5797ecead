"""`mat-inspect` (bio/mat_inspect.py): what the Train sub-tab shows of a .mat dataset, and its refusals."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import CommandResult, WarmWorker
from PIL import Image

from qmlstudio_worker.problems.brain_tumor.mat_data import MriSlice
from qmlstudio_worker.problems.brain_tumor.mat_inspect import mask_runs, run_mat_inspect
from qmlstudio_worker.problems.brain_tumor.mat_write import write_struct_array
from qmlstudio_worker.protocol import Emitter


def slice_with_tumor(label: int, pid: str, box: tuple[int, int, int, int]) -> MriSlice:
    """A 32x48 slice, dark but for a bright head, and a rectangular tumor over x0..x1, y0..y1 (inclusive)."""
    image = np.full((32, 48), 10.0, dtype=np.float32)
    image[4:28, 6:42] = 200.0
    mask = np.zeros(image.shape, dtype=bool)
    x0, y0, x1, y1 = box
    mask[y0 : y1 + 1, x0 : x1 + 1] = True
    image[mask] = 400.0
    border = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)
    return MriSlice(image=image, label=label, pid=pid, border=border, mask=mask)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "three.mat"
    write_struct_array(
        path,
        [
            slice_with_tumor(1, "p1", (10, 10, 13, 11)),
            slice_with_tumor(2, "p2", (20, 8, 30, 20)),
            slice_with_tumor(2, "p2", (5, 5, 6, 5)),
        ],
    )
    return path


def inspect(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = run_mat_inspect(json.dumps(request), Emitter(out))
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    return code, json.loads(lines[0])


def test_describes_the_dataset_its_first_rows_and_the_chosen_slice(dataset: Path) -> None:
    code, line = inspect({"path": str(dataset), "index": 1, "rows": 2})
    assert code == 0
    assert line["type"] == "result"
    found = line["data"]
    assert found["count"] == 3
    assert found["class_counts"] == {"meningioma": 1, "glioma": 2, "pituitary": 0}
    assert found["patients"] == 2
    assert found["image_size"] == [32, 48]
    assert found["format"] == "mat-v7.3"
    assert [row["index"] for row in found["image_data"]] == [1, 2]
    first = found["image_data"][0]
    assert first == {
        "index": 1,
        "label": 1,
        "label_name": "meningioma",
        "pid": "p1",
        "height": 32,
        "width": 48,
        "min": 10.0,
        "max": 400.0,
        "mean": pytest.approx(first["mean"]),
    }
    expected_mean = (32 * 48 * 10 + 24 * 36 * 190 + 8 * 200) / (32 * 48)
    assert first["mean"] == pytest.approx(expected_mean, abs=1e-3)

    chosen = found["slice"]
    assert chosen["index"] == 2
    assert chosen["label_name"] == "glioma"
    assert chosen["tumor_border"] == [[20, 8], [30, 8], [30, 20], [20, 20]]
    mask = chosen["tumor_mask"]
    assert mask["area"] == 11 * 13
    assert mask["bbox"] == [20, 8, 30, 20]
    assert mask["rows"][0] == [8, 20, 30]
    assert len(mask["rows"]) == 13


def test_the_thumbnail_is_a_256_pixel_png_with_the_mask_in_red(dataset: Path) -> None:
    _, line = inspect({"path": str(dataset), "index": 1})
    picture = Image.open(io.BytesIO(base64.b64decode(line["data"]["slice"]["thumbnail_png"])))
    assert picture.format == "PNG"
    assert picture.size == (256, 256)
    pixels = np.asarray(picture.convert("RGB")).astype(int)
    # The slice is 48 wide and 32 high: the tumor (x 20..30, y 8..20) is at x 107..165, y 64..167 in the
    # thumbnail; its middle is tinted red, the head beside it is gray.
    red, green, blue = pixels[110, 135]
    assert red > green + 60
    assert green == blue
    r2, g2, b2 = pixels[110, 60]
    assert r2 == g2 == b2
    assert r2 > 50


def test_mask_runs_stop_at_the_limit() -> None:
    mask = np.zeros((5, 9), dtype=bool)
    mask[:, ::2] = True  # five runs of one pixel per row
    assert mask_runs(mask, limit=7) == [
        [0, 0, 0],
        [0, 2, 2],
        [0, 4, 4],
        [0, 6, 6],
        [0, 8, 8],
        [1, 0, 0],
        [1, 2, 2],
    ]


def test_refuses_a_file_that_is_not_a_mat_dataset_on_the_path_field(tmp_path: Path) -> None:
    text = tmp_path / "table.csv"
    text.write_text("a,b\n1,2\n")
    code, line = inspect({"path": str(text)})
    assert code == 2
    assert line == {
        "type": "error",
        "kind": "validation",
        "field": "/path",
        "message": "not a MATLAB file: expected a .mat file (MATLAB v5, v7 or v7.3) or a .zip of .mat files",
    }


@pytest.mark.parametrize(
    ("request_extra", "field", "message"),
    [
        ({"index": 3}, "/index", "/index: slice 4 does not exist: the dataset has 3 slices"),
        ({"index": -1}, "/index", "/index: must be at least 0"),
        ({"rows": 0}, "/rows", "/rows: must be between 1 and 1000"),
        ({"rows": "30"}, "/rows", "/rows: must be an integer"),
    ],
)
def test_refuses_a_bad_index_or_row_count_naming_the_field(
    dataset: Path, request_extra: dict[str, Any], field: str, message: str
) -> None:
    code, line = inspect({"path": str(dataset), **request_extra})
    assert code == 2
    assert (line["field"], line["message"]) == (field, message)


@pytest.mark.integration
def test_the_cli_command_prints_one_protocol_line(
    dataset: Path, warm_worker: WarmWorker, parse_protocol_lines: Callable[[str], list[dict[str, Any]]]
) -> None:
    def run(request: dict[str, Any]) -> CommandResult:
        # In a process of its own: a child of the session's warm worker (conftest.py).
        return warm_worker.command("mat-inspect", request)

    done = run({"path": str(dataset), "rows": 1})
    assert done.returncode == 0, done.stderr
    (line,) = parse_protocol_lines(done.stdout)
    assert line["data"]["count"] == 3
    assert len(line["data"]["image_data"]) == 1

    refused = run({"path": str(dataset.with_name("missing.mat"))})
    assert refused.returncode == 2
    (error,) = parse_protocol_lines(refused.stdout)
    assert error["field"] == "/path"
    assert error["message"].startswith("the file could not be opened")
