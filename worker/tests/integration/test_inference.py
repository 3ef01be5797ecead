"""`python -m qmlstudio_worker infer` as the server runs it: a model saved by a training run, a CSV, the
user's features on stdin; one result line {actual, predicted, rows} or one validation error naming what is
missing."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import WarmWorker, dataset_entry

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.inference import check_columns, check_model_features, parse_request, run_inference
from qmlstudio_worker.ml.artifacts import save_fitted
from qmlstudio_worker.ml.classification import train_classifier
from qmlstudio_worker.ml.recurrent import train_recurrent_forecaster
from qmlstudio_worker.protocol import EXIT_OK, EXIT_VALIDATION_ERROR, Emitter

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[3]
STOCK_CSV = REPO_ROOT / "samples" / "apple_google_stock.csv"
FRAUD_CSV = REPO_ROOT / "samples" / "credit_card_fraud_synthetic.csv"
FEATURES = ["Close", "High", "Low", "Open"]


def infer(
    request: dict[str, Any], cwd: Path, *, cli: WarmWorker | None = None
) -> tuple[int, list[dict[str, Any]], str]:
    """Exit code, protocol lines and stderr of one inference: the ``infer`` command in a process of its own
    (a child of the session's warm worker, which runs ``cli.main`` as ``python -m qmlstudio_worker infer``
    does) with ``cli``, else in this process (the same function the command calls)."""
    if cli is None:
        stream = io.StringIO()
        code = run_inference(json.dumps(request), Emitter(stream))
        return code, [json.loads(line) for line in stream.getvalue().splitlines()], ""
    completed = cli.command("infer", request)
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    return completed.returncode, lines, completed.stderr


@pytest.fixture(scope="module")
def stock_model(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A GRU trained on 150 AAPL rows and saved as a run saves it; a fresh CSV of the next 60 rows."""
    base = tmp_path_factory.mktemp("stock")
    frame = pd.read_csv(STOCK_CSV)
    aapl = frame[frame["Ticker"] == "AAPL"].reset_index(drop=True)
    _result, fitted = train_recurrent_forecaster(
        aapl.head(150).reset_index(drop=True),
        model="GRU",
        training_features=FEATURES,
        prediction_feature="Close",
        train_share=0.7,
        epochs=3,
        learning_rate=0.01,
        hidden_layers=8,
        seed=7,
        torch_threads=1,
    )
    model_dir = base / "outputs" / "1"
    save_fitted(model_dir, fitted, "stock-price-prediction")
    new_rows = aapl.iloc[150:210].reset_index(drop=True)
    csv = base / "new.csv"
    new_rows.to_csv(csv, index=False)
    return {"dir": model_dir, "csv": csv, "fitted": fitted, "rows": new_rows}


def test_stock_round_trip_gives_the_models_own_forecasts(
    stock_model: dict[str, Any], tmp_path: Path, warm_worker: WarmWorker
) -> None:
    request = {
        "problem": "stock-price-prediction",
        "model_dir": str(stock_model["dir"]),
        "dataset": {"path": str(stock_model["csv"])},
        "features": ["Open\r", "High", "Low", "Close"],  # any order; carriage returns from a CSV header
    }
    code, lines, stderr = infer(request, tmp_path, cli=warm_worker)
    assert code == EXIT_OK, stderr
    assert len(lines) == 1
    assert lines[0]["type"] == "result"
    data = lines[0]["data"]
    rows: pd.DataFrame = stock_model["rows"]
    fitted = stock_model["fitted"]
    assert data["rows"] == 60
    # One forecast per row after the first `window` rows, each paired with that row's Close.
    assert len(data["predicted"]) == 60 - fitted.window
    assert data["actual"] == pytest.approx(rows["Close"].to_numpy()[fitted.window :].tolist())
    expected = fitted.predict(rows)
    assert data["predicted"] == pytest.approx(np.asarray(expected).tolist(), rel=1e-6)
    # Forecasts in price units (the scaler was inverted), not in [0, 1].
    assert min(data["predicted"]) > 5


def test_missing_csv_columns_are_named(
    stock_model: dict[str, Any], tmp_path: Path, warm_worker: WarmWorker
) -> None:
    rows: pd.DataFrame = stock_model["rows"].drop(columns=["High", "Low"])
    csv = tmp_path / "fewer.csv"
    rows.to_csv(csv, index=False)
    request = {
        "problem": "stock-price-prediction",
        "model_dir": str(stock_model["dir"]),
        "dataset": {"path": str(csv)},
        "features": FEATURES,
    }
    code, lines, _stderr = infer(request, tmp_path, cli=warm_worker)
    assert code == EXIT_VALIDATION_ERROR
    assert [line["type"] for line in lines] == ["error"]
    assert lines[0]["kind"] == "validation"
    assert lines[0]["field"] == "/features"
    assert lines[0]["message"].startswith("Missing features: High, Low")


def test_features_the_model_was_trained_on_must_all_be_selected(
    stock_model: dict[str, Any], tmp_path: Path
) -> None:
    request = {
        "problem": "stock-price-prediction",
        "model_dir": str(stock_model["dir"]),
        "dataset": {"path": str(stock_model["csv"])},
        "features": ["Close", "Open"],
    }
    code, lines, _stderr = infer(request, tmp_path)
    assert code == EXIT_VALIDATION_ERROR
    assert lines[0]["message"].startswith("Missing features: High, Low (the model was trained on")


def test_a_feature_the_model_does_not_use_is_refused(stock_model: dict[str, Any], tmp_path: Path) -> None:
    request = {
        "problem": "stock-price-prediction",
        "model_dir": str(stock_model["dir"]),
        "dataset": {"path": str(stock_model["csv"])},
        "features": [*FEATURES, "Volume"],
    }
    code, lines, _stderr = infer(request, tmp_path)
    assert code == EXIT_VALIDATION_ERROR
    assert "Volume" in lines[0]["message"]
    assert lines[0]["field"] == "/features"


def test_a_model_of_another_problem_is_refused(stock_model: dict[str, Any], tmp_path: Path) -> None:
    request = {
        "problem": "demand-forecasting",
        "model_dir": str(stock_model["dir"]),
        "dataset": {"path": str(stock_model["csv"])},
        "features": FEATURES,
    }
    code, lines, _stderr = infer(request, tmp_path)
    assert code == EXIT_VALIDATION_ERROR
    assert lines[0]["field"] == "/problem"


def test_an_output_without_a_model_is_refused(tmp_path: Path, stock_model: dict[str, Any]) -> None:
    empty = tmp_path / "outputs" / "2"
    empty.mkdir(parents=True)
    request = {
        "problem": "stock-price-prediction",
        "model_dir": str(empty),
        "dataset": {"path": str(stock_model["csv"])},
        "features": FEATURES,
    }
    code, lines, _stderr = infer(request, tmp_path)
    assert code == EXIT_VALIDATION_ERROR
    assert lines[0]["message"].startswith("No trained model")


def test_too_few_rows_for_the_window_is_a_validation_error(
    stock_model: dict[str, Any], tmp_path: Path
) -> None:
    csv = tmp_path / "short.csv"
    stock_model["rows"].head(3).to_csv(csv, index=False)
    request = {
        "problem": "stock-price-prediction",
        "model_dir": str(stock_model["dir"]),
        "dataset": {"path": str(csv)},
        "features": FEATURES,
    }
    code, lines, _stderr = infer(request, tmp_path)
    assert code == EXIT_VALIDATION_ERROR
    assert lines[0]["kind"] == "validation"
    assert lines[0]["field"] == "/dataset/path"


def test_a_file_that_is_not_csv_is_refused(stock_model: dict[str, Any], tmp_path: Path) -> None:
    bad = tmp_path / "book.csv"
    bad.write_bytes(b"PK\x03\x04" + bytes(200))
    request = {
        "problem": "stock-price-prediction",
        "model_dir": str(stock_model["dir"]),
        "dataset": {"path": str(bad)},
        "features": FEATURES,
    }
    code, lines, _stderr = infer(request, tmp_path)
    assert code == EXIT_VALIDATION_ERROR
    assert lines[0]["field"] == "/dataset/path"


def test_fraud_round_trip_reports_labels(tmp_path: Path) -> None:
    frame = pd.read_csv(FRAUD_CSV).head(1500)
    _result, fitted = train_classifier(frame, model="Logistic Regression", test_ratio=0.3, seed=3)
    model_dir = tmp_path / "outputs" / "3"
    save_fitted(model_dir, fitted, "fraud-detection")
    new_rows = pd.read_csv(FRAUD_CSV).iloc[1500:1800].reset_index(drop=True)
    csv = tmp_path / "new.csv"
    new_rows.to_csv(csv, index=False)
    features = [c for c in new_rows.columns if c != "Class"]
    code, lines, stderr = infer(
        {
            "problem": "fraud-detection",
            "model_dir": str(model_dir),
            "dataset": {"path": str(csv)},
            "features": features,
        },
        tmp_path,
    )
    assert code == EXIT_OK, stderr
    data = lines[0]["data"]
    assert data["rows"] == 300
    assert data["actual"] == [float(v) for v in new_rows["Class"]]
    assert len(data["predicted"]) == 300
    assert set(data["predicted"]) <= {0.0, 1.0}
    expected = fitted.predict(new_rows)
    assert data["predicted"] == [1.0 if v == fitted.positive else 0.0 for v in expected]


# --- the request's own checks (no model needed) ------------------------------------------------------


def test_request_fields_are_checked_by_name() -> None:
    with pytest.raises(JobValidationError) as refused:
        parse_request('{"problem": "x", "model_dir": "/m", "dataset": {"path": "/d.csv"}}')
    assert refused.value.field == "/features"
    with pytest.raises(JobValidationError) as refused:
        parse_request('{"problem": "x", "model_dir": "/m", "dataset": {}, "features": ["a"]}')
    assert refused.value.field == "/dataset/path"
    with pytest.raises(JobValidationError) as refused:
        parse_request(
            '{"problem": "x", "model_dir": "/m", "dataset": {"path": "/d"}, "features": ["\\r", " "]}'
        )
    assert refused.value.message == "Please select a feature"
    with pytest.raises(JobValidationError) as refused:
        parse_request(
            '{"problem": "x", "model_dir": "/m", "dataset": {"path": "/d"}, "features": [], "x": 1}'
        )
    assert refused.value.field == "/x"
    _problem, _dir, _path, features = parse_request(
        '{"problem": "x", "model_dir": "/m", "dataset": {"path": "/d"}, "features": ["b\\r", "a", "b"]}'
    )
    assert features == ["b", "a"]


def test_feature_checks_name_every_missing_one() -> None:
    check_columns(["a", "b"], ["a", "b", "c"])
    with pytest.raises(JobValidationError, match=r"^Missing features: b, d \(the CSV's columns are a, c\)"):
        check_columns(["a", "b", "d"], ["a", "c"])
    check_model_features(["b", "a"], ["a", "b"])
    with pytest.raises(JobValidationError, match=r"^Missing features: b \(the model was trained on a, b"):
        check_model_features(["a"], ["a", "b"])


def classical_body(problem: str, **changes: Any) -> dict[str, Any]:
    """The engine's mapping of the problem's example with model_type Classical (the codegen fixture)."""
    path = REPO_ROOT / "src" / "generated" / "fixtures" / f"{problem}.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Classical"]
    return {**request["body"], **changes}


def extension_for(path: Path) -> dict[str, Any]:
    """The envelope extension the server sends for a sample dataset."""
    return {
        "dataset": dataset_entry(path),
        "normalization": "[0,1]",
        "missing_values": "impute_average",
        "target_column": None,
        "seed": 42,
    }


# --- a model saved by the demand-forecasting handler itself --------------------------------------------


def test_demand_handler_output_answers_inference_with_its_own_test_forecasts(tmp_path: Path) -> None:
    """The handler trains on the example's rows and saves its model; inference on those same rows forecasts
    the test part exactly as the run did (same weights, same scalers, same windows)."""
    from qmlstudio_worker.jobs.runner import run_job

    dataset = REPO_ROOT / "samples" / "product_demand.csv"
    body = classical_body("demand-forecasting", epochs=5)
    output_dir = tmp_path / "outputs" / "12"
    envelope = {
        "kind": "demand-forecasting",
        "job_id": "12",
        "params": body,
        "output_dir": str(output_dir),
        "extension": extension_for(dataset),
    }
    stream = io.StringIO()
    assert run_job(json.dumps(envelope), Emitter(stream)) == EXIT_OK
    result = json.loads(stream.getvalue().splitlines()[-1])["data"]
    assert result["trained_model_path"]
    run_predicted = result["prediction"]["predicted"]
    run_actual = result["prediction"]["actual"]

    rows = pd.read_csv(dataset).iloc[body["from_index"] - 1 : body["to_index"]]
    csv = tmp_path / "same_rows.csv"
    rows.to_csv(csv, index=False)
    request = {
        "problem": "demand-forecasting",
        "model_dir": str(output_dir),
        "dataset": {"path": str(csv)},
        "features": body["training_features"],
    }
    code, lines, stderr = infer(request, tmp_path)
    assert code == EXIT_OK, stderr
    data = lines[0]["data"]
    assert data["rows"] == body["to_index"] - body["from_index"] + 1 == len(rows)
    # The last forecasts are the run's test forecasts, paired with the same actual sales.
    assert data["predicted"][-len(run_predicted) :] == pytest.approx(run_predicted, rel=1e-5)
    assert data["actual"][-len(run_actual) :] == pytest.approx(run_actual)

    # The target column is not a feature the model reads: selecting it is refused by name.
    code, lines, _stderr = infer(
        {**request, "features": [*body["training_features"], "Weekly_Sales"]}, tmp_path
    )
    assert code == EXIT_VALIDATION_ERROR
    assert "Weekly_Sales" in lines[0]["message"]
