"""The one CSV row rule in the worker's loader, on every case of tests/contracts/csv-row-rule.json (the
twin of server/datasets/csv-inspection.test.ts and of the browser parser's test: one fixture, one rule),
and the warning a job logs for dropped rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qmlstudio_worker.ml.datasets import DatasetError, count_rows, dropped_rows_note, load_csv

FIXTURE = Path(__file__).resolve().parents[3] / "tests" / "contracts" / "csv-row-rule.json"
CASES: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]


def test_the_fixture_has_the_cases_the_contract_names() -> None:
    assert 8 <= len(CASES) <= 12


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_load_csv_follows_the_row_rule(case: dict[str, Any]) -> None:
    loaded = load_csv(case["csv"].encode("utf-8"))
    assert list(loaded.facts.columns) == case["columns"]
    assert [str(column) for column in loaded.frame.columns] == case["columns"]
    assert loaded.facts.rows == case["rows"]
    assert len(loaded.frame.index) == case["rows"]
    assert loaded.facts.dropped_rows == case["dropped"]
    assert loaded.facts.as_dict()["dropped_rows"] == case["dropped"]


def test_kept_rows_keep_their_values_and_types() -> None:
    loaded = load_csv(b'a,b,c\r\n1,"x,y",3\r\n\r\n4,5\r\n7,8,9,10\r\n11,"say ""hi""",13\r\n')
    assert loaded.frame["a"].tolist() == [1, 11]
    assert loaded.frame["b"].tolist() == ["x,y", 'say "hi"']
    assert loaded.frame["c"].tolist() == [3, 13]
    assert count_rows("a,b\n1,2\n\n3\n", 2).kept_text == "a,b\n1,2\n"


def test_a_file_whose_every_row_is_dropped_is_refused() -> None:
    with pytest.raises(DatasetError) as caught:
        load_csv(b"a,b\n1\n2,3,4\n")
    assert caught.value.message == "No data row has the header's 2 values: all 2 rows were dropped."


def test_the_warning_names_the_dropped_rows() -> None:
    assert dropped_rows_note(load_csv(b"a,b\n1,2\n").facts) is None
    assert dropped_rows_note(load_csv(b"a,b\n1,2\n3\n").facts) == (
        "1 row of the dataset dropped: its number of values differs from the header's 2."
    )
    assert dropped_rows_note(load_csv(b"a,b\n1,2\n3\n4,5,6\n").facts) == (
        "2 rows of the dataset dropped: their number of values differs from the header's 2."
    )


def test_a_lone_carriage_return_ends_a_row_and_a_row_of_spaces_is_a_row() -> None:
    # As the server's inspector counts them (a CR alone is a line break; a line with spaces is not blank).
    assert load_csv(b"a,b\r1,2\r3,4\r").facts.rows == 2
    loaded = load_csv(b"a\n1\n \n2\n")
    assert (loaded.facts.rows, loaded.facts.dropped_rows) == (3, 0)
    assert len(loaded.frame.index) == 3


def test_a_job_logs_the_dropped_rows_as_a_warning(tmp_path: Path) -> None:
    import io

    from qmlstudio_worker.jobs.context import JobContext
    from qmlstudio_worker.jobs.support import open_job_inputs
    from qmlstudio_worker.protocol import Emitter

    dataset = tmp_path / "ragged.csv"
    dataset.write_bytes(b"Date,Close\n2024-01-01,1\n2024-01-02\n2024-01-03,3\n2024-01-04,4,x\n")
    out = io.StringIO()
    ctx = JobContext(
        job_id="t",
        emitter=Emitter(out),
        extension={"dataset": {"path": str(dataset), "label": "ragged.csv"}},
    )
    inputs = open_job_inputs({}, ctx, "dataset")
    assert len(inputs.frame.index) == 2
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    warnings = [line["message"] for line in lines if line["type"] == "log" and line["level"] == "warning"]
    assert "2 rows of the dataset dropped: their number of values differs from the header's 2." in warnings
