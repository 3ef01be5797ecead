"""The four financial handlers end to end through runner.run_job, with real envelopes.

Each body is the engine's mapping of the problem's example (src/generated/fixtures/<id>.job-requests.json,
"example with model_type Classical"), made smaller where training would take long (fewer epochs, fewer
rows); the envelope carries the extension the server sends (resolved dataset, normalization, missing
values, target column, seed). Expected values are computed here from the CSV, not copied from a run.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import REPO_ROOT, dataset_entry

from qmlstudio_worker.jobs.runner import run_job
from qmlstudio_worker.ml.artifacts import load_fitted, read_model_card
from qmlstudio_worker.ml.datasets import DatasetError
from qmlstudio_worker.ml.preprocess import stratified_split
from qmlstudio_worker.protocol import EXIT_OK, EXIT_VALIDATION_ERROR, Emitter

SAMPLES = REPO_ROOT / "samples"
Lines = list[dict[str, Any]]
RESULT_KEYS = {
    "problem",
    "model",
    "model_type",
    "metrics",
    "baseline",
    "charts",
    "losses",
    "training_data",
    "confusion_matrix",
    "prediction",
    "selection",
    "artifacts",
    "trained_model_path",
    "run_record",
    "dataset",
}
FORECAST_METRICS = {"mse", "rmse", "mae", "mape", "r2", "direction_accuracy"}


def classical_body(problem: str, **changes: Any) -> dict[str, Any]:
    path = REPO_ROOT / "src" / "generated" / "fixtures" / f"{problem}.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Classical"]
    body: dict[str, Any] = {**request["body"], **changes}
    return body


def extension_for(path: Path, **changes: Any) -> dict[str, Any]:
    ext: dict[str, Any] = {
        "dataset": dataset_entry(path),
        "normalization": "[0,1]",
        "missing_values": "impute_average",
        "target_column": None,
        "seed": 42,
    }
    ext.update(changes)
    return ext


def run(
    problem: str,
    body: dict[str, Any],
    dataset: Path,
    out_dir: Path | None,
    parse: Callable[[str], Lines],
    **ext: Any,
) -> tuple[int, Lines]:
    envelope: dict[str, Any] = {
        "kind": problem,
        "job_id": "11",
        "params": body,
        "extension": extension_for(dataset, **ext),
    }
    if out_dir is not None:
        envelope["output_dir"] = str(out_dir)
    stream = io.StringIO()
    code = run_job(json.dumps(envelope), Emitter(stream))
    return code, parse(stream.getvalue())


def result_of(code: int, lines: Lines) -> dict[str, Any]:
    assert code == EXIT_OK, lines[-1]
    assert lines[-1]["type"] == "result"
    data: dict[str, Any] = lines[-1]["data"]
    assert set(data) >= RESULT_KEYS
    return data


def refusal(code: int, lines: Lines) -> dict[str, Any]:
    assert code == EXIT_VALIDATION_ERROR, lines[-1]
    assert lines[-1]["type"] == "error"
    assert lines[-1]["kind"] == "validation"
    return lines[-1]


def rmse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


# --- demand forecasting ---------------------------------------------------------------------------


def test_demand_trains_an_lstm_next_to_the_seasonal_naive_baseline_and_saves_a_loadable_model(
    tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    body = classical_body("demand-forecasting", epochs=5, hidden_layers=8)
    dataset = SAMPLES / "product_demand.csv"
    code, lines = run("demand-forecasting", body, dataset, tmp_path, parse_protocol_lines)
    data = result_of(code, lines)
    assert (data["problem"], data["model"], data["model_type"]) == ("demand-forecasting", "LSTM", "Classical")
    assert set(data["metrics"]) == FORECAST_METRICS

    # Rows 1..143 of the file: store 1, department 1, weekly. Split 0.7: 100 training rows, 43 test rows;
    # the seasonal-naive forecast of week t is week t - 52.
    sales = pd.read_csv(dataset)["Weekly_Sales"].to_numpy()[:143]
    actual, seasonal = sales[100:], sales[48:91]
    assert data["prediction"]["actual"] == pytest.approx(actual.tolist())
    assert data["baselines"]["seasonal_naive"]["rmse"] == pytest.approx(rmse(actual, seasonal))
    assert data["baselines"]["persistence"]["rmse"] == pytest.approx(rmse(actual, sales[99:142]))
    # The training part's Easter weeks follow Easter: the reference is aligned on it, and the model is shown
    # beside that reference (plain seasonal naive stays among the baselines).
    assert data["training_data"]["inputs"]["easter_aligned"] is True
    assert data["baseline"]["name"] == "seasonal naive, Easter aligned (52 rows)"
    easter = data["baselines"]["seasonal_naive_easter"]["rmse"]
    assert data["baseline"]["metrics"]["rmse"] == easter
    assert easter < data["baselines"]["seasonal_naive"]["rmse"]
    assert data["metrics"]["rmse"] == pytest.approx(rmse(actual, np.array(data["prediction"]["predicted"])))
    assert data["dataset"]["rows_used"] == 143
    assert data["dataset"]["sha256"] == hashlib.sha256(dataset.read_bytes()).hexdigest()
    assert len(data["losses"]["train"]) == len(data["losses"]["test"]) == 5

    # Progress per epoch, the metric lines of the model and of both baselines, artifacts announced.
    stages = [line["stage"] for line in lines if line["type"] == "progress"]
    assert [s for s in stages if s.startswith("Epoch")] == [f"Epoch {i}/5" for i in range(1, 6)]
    assert stages[-1] == "done"
    metric_names = {line["name"] for line in lines if line["type"] == "metric"}
    assert {"rmse", "persistence_rmse", "seasonal_naive_rmse", "train_loss", "test_loss"} <= metric_names
    assert "seasonal_naive_easter_rmse" in metric_names
    chart = next(c for c in data["charts"] if c["title"].startswith("Actual vs predicted"))
    assert [s["name"] for s in chart["series"]] == ["actual", "predicted", "persistence", "seasonal naive"]
    comparison = data["charts"][-1]
    assert (comparison["type"], comparison["categories"]) == ("bar", ["rmse", "mae"])
    assert [s["name"] for s in comparison["series"]] == [
        "LSTM",
        "persistence",
        "seasonal naive",
        "seasonal naive, Easter aligned",
    ]
    assert comparison["series"][2]["data"][0] == pytest.approx(rmse(actual, seasonal))
    announced = {line["name"]: line["path"] for line in lines if line["type"] == "artifact"}
    assert announced == {name: str(tmp_path / file) for name, file in data["artifacts"].items()}
    assert data["trained_model_path"] == "model.pt"

    # Artifacts round trip: the loaded model reproduces the run's test forecasts from the same rows.
    card = read_model_card(tmp_path)
    assert (card["framework"], card["model"], card["target"]) == ("torch", "LSTM", "Weekly_Sales")
    assert card["features"] == body["training_features"]
    predictor = load_fitted(tmp_path)
    rows = pd.read_csv(dataset).iloc[:143]
    got_actual, got_predicted = predictor.predict_frame(rows)
    # A weekly series with a season in its training part is forecast from the value a season (52 rows)
    # before: the model forecasts the rows from the 53rd on.
    first = predictor.fitted.first_target
    assert first == 52
    assert got_actual == pytest.approx(sales[first:].tolist())
    assert got_predicted[100 - first :] == pytest.approx(data["prediction"]["predicted"], rel=1e-5)
    # The verdict is against the best baseline: the aligned reference, not plain seasonal naive.
    assert data["baseline_verdict"]["baseline"] == "seasonal naive, Easter aligned"

    with pytest.raises(DatasetError, match="'CPI'"):
        predictor.predict_frame(rows.drop(columns=["CPI"]))

    record = data["run_record"]
    # the body as it ran: its null fields took the problem file's defaults
    assert record["config"] == {**body, "qubits": 4}
    assert record["seed"] == 42
    assert record["dataset_sha256"] == data["dataset"]["sha256"]
    assert {"torch", "numpy", "pandas", "scikit_learn"} <= set(record["versions"])
    assert record["machine"]["cpu_count"]


def test_demand_with_less_than_a_season_of_training_rows_falls_back_to_persistence(
    parse_protocol_lines: Callable[[str], Lines],
) -> None:
    body = classical_body("demand-forecasting", epochs=5, hidden_layers=4, to_index=60)
    code, lines = run(
        "demand-forecasting", body, SAMPLES / "product_demand.csv", None, parse_protocol_lines, seed=3
    )
    data = result_of(code, lines)
    sales = pd.read_csv(SAMPLES / "product_demand.csv")["Weekly_Sales"].to_numpy()[:60]
    assert data["baseline"]["name"].startswith("persistence")
    assert data["baseline"]["metrics"]["rmse"] == pytest.approx(rmse(sales[42:], sales[41:59]))
    assert "seasonal_naive" not in data["baselines"]
    logs = [line["message"] for line in lines if line["type"] == "log"]
    assert any("fewer than 52 rows" in message for message in logs)
    assert data["run_record"]["seed"] == 3


def test_demand_quantum_runs_the_hybrid_model_and_its_artifacts_load(
    tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    pytest.importorskip("qmlstudio_worker.quantum.hybrid")
    path = REPO_ROOT / "src" / "generated" / "fixtures" / "demand-forecasting.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Quantum"]
    body = {**request["body"], "epochs": 5}
    dataset = SAMPLES / "product_demand.csv"
    data = result_of(*run("demand-forecasting", body, dataset, tmp_path, parse_protocol_lines))
    assert data["model_type"] == "Quantum"
    assert data["baseline"]["name"] == "seasonal naive, Easter aligned (52 rows)"
    card = read_model_card(tmp_path)
    assert card["framework"] != "torch"
    assert card["architecture"]["qubits"] == body["qubits"]
    assert "(16)" in card["architecture"]["encoder"]  # the body's hidden_layers takes effect
    actual, predicted = load_fitted(tmp_path).predict_frame(pd.read_csv(dataset).iloc[:143])
    assert actual[-43:] == pytest.approx(data["prediction"]["actual"])
    assert predicted[-43:] == pytest.approx(data["prediction"]["predicted"], rel=1e-5)


# --- stock price prediction -----------------------------------------------------------------------


def test_stock_same_body_and_seed_same_metrics_and_the_normalization_takes_effect(
    tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    body = classical_body(
        "stock-price-prediction", training_model_method="GRU", epochs=5, hidden_layers=8, to_index=60
    )
    dataset = SAMPLES / "apple_google_stock.csv"
    runs = [
        result_of(
            *run(
                "stock-price-prediction",
                body,
                dataset,
                tmp_path / name,
                parse_protocol_lines,
                normalization="[-1,1]",
            )
        )
        for name in ("a", "b")
    ]
    assert runs[0]["metrics"] == runs[1]["metrics"]
    assert runs[0]["losses"] == runs[1]["losses"]
    other_seed = result_of(
        *run(
            "stock-price-prediction",
            body,
            dataset,
            tmp_path / "c",
            parse_protocol_lines,
            normalization="[-1,1]",
            seed=7,
        )
    )
    assert other_seed["losses"] != runs[0]["losses"]  # the seed takes effect
    assert other_seed["run_record"]["seed"] == 7
    data = runs[0]
    assert data["model"] == "GRU"
    closes = pd.read_csv(dataset)["Close"].to_numpy()[:60]
    # Persistence (tomorrow = today) on the same 24 test rows (split 0.6 of 60).
    assert data["baseline"]["name"].startswith("persistence")
    assert data["baseline"]["metrics"]["rmse"] == pytest.approx(rmse(closes[36:], closes[35:59]))
    titles = [c["title"] for c in data["charts"]]
    assert titles[0] == "Training and test loss per epoch"
    assert any(t.startswith("Actual vs predicted Close") for t in titles)
    assert any(t.startswith("Close history") for t in titles)

    # The target normalizer maps the range of the training rows' day-to-day changes (the network predicts
    # the change from the last close) onto [-1, 1]: fitted on rows 1..36 only.
    scaler = json.loads((tmp_path / "a" / "scaler.json").read_text())
    assert scaler["target_mode"] == "change"
    assert scaler["target_normalizer"]["normalization"] == "[-1,1]"
    assert scaler["target_normalizer"]["data_max"] == [pytest.approx(np.diff(closes[:36]).max())]
    assert scaler["target_normalizer"]["data_min"] == [pytest.approx(np.diff(closes[:36]).min())]
    assert data["run_record"]["preprocessing"]["normalization"] == "[-1,1]"


@pytest.mark.parametrize(
    ("rule", "rows_used"), [("remove_rows", 57), ("random_values", 60), ("impute_average", 60)]
)
def test_stock_missing_values_rule_takes_effect(
    rule: str, rows_used: int, tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    frame = pd.read_csv(SAMPLES / "apple_google_stock.csv").head(60)
    frame.loc[[5, 20, 50], "Open"] = np.nan
    dataset = tmp_path / "gaps.csv"
    frame.to_csv(dataset, index=False)
    body = classical_body(
        "stock-price-prediction", training_model_method="RNN", epochs=5, hidden_layers=4, to_index=60
    )
    code, lines = run(
        "stock-price-prediction", body, dataset, tmp_path / "out", parse_protocol_lines, missing_values=rule
    )
    data = result_of(code, lines)
    assert data["dataset"]["rows_used"] == rows_used
    assert read_model_card(tmp_path / "out")["missing_values"] == rule
    assert data["run_record"]["preprocessing"]["missing_values"] == rule


@pytest.mark.parametrize(
    ("changes", "field", "named"),
    [
        ({"training_features": ["Close", "Nope"]}, "/params/training_features", "'Nope'"),
        ({"training_features": ["Close", "Ticker"]}, "/params/training_features", "Ticker"),
        ({"prediction_features": ["Price"]}, "/params/prediction_features", "'Price'"),
        ({"prediction_features": ["Close", "Open"]}, "/params/prediction_features", "Close, Open"),
        ({"to_index": 99999}, "/params/to_index", "cannot exceed the number of rows (5398)"),
        ({"to_index": 15}, None, "it needs more than the window of 10 rows"),
    ],
)
def test_stock_bad_columns_and_rows_are_refused_naming_them(
    changes: dict[str, Any], field: str | None, named: str, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    body = classical_body("stock-price-prediction", **changes)
    code, lines = run(
        "stock-price-prediction", body, SAMPLES / "apple_google_stock.csv", None, parse_protocol_lines
    )
    error = refusal(code, lines)
    assert error.get("field") == field
    assert named in error["message"]


def test_a_dataset_the_server_did_not_resolve_is_refused(
    parse_protocol_lines: Callable[[str], Lines],
) -> None:
    body = classical_body("stock-price-prediction", dataset="https://example.com/prices.csv")
    stream = io.StringIO()
    code = run_job(
        json.dumps({"kind": "stock-price-prediction", "job_id": "1", "params": body}), Emitter(stream)
    )
    error = refusal(code, parse_protocol_lines(stream.getvalue()))
    assert error["field"] == "/params/dataset"
    assert "not resolved by the server" in error["message"]


def test_an_unreadable_dataset_is_refused_with_the_loaders_sentence(
    tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("Date,Close\n", encoding="utf-8")
    code, lines = run(
        "stock-price-prediction", classical_body("stock-price-prediction"), empty, None, parse_protocol_lines
    )
    error = refusal(code, lines)
    assert error["field"] == "/params/dataset"
    assert error["message"] == "The file has a header row but no data rows."


# --- fraud detection ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_fraud(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every fraud row of the sample and the first 900 others, the label column renamed, a few empty
    cells in V1."""
    frame = pd.read_csv(SAMPLES / "credit_card_fraud_synthetic.csv")
    small = pd.concat([frame[frame["Class"] == 1], frame[frame["Class"] == 0].head(900)]).sort_index()
    small = small.rename(columns={"Class": "Fraud"}).reset_index(drop=True)
    small.loc[[3, 50, 400], "V1"] = np.nan
    path = tmp_path_factory.mktemp("fraud") / "fraud_small.csv"
    small.to_csv(path, index=False)
    return path


def test_fraud_trains_next_to_the_majority_baseline_and_the_saved_model_gives_the_same_confusion_matrix(
    small_fraud: Path, tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    body = classical_body("fraud-detection", model="Logistic Regression", test_ratio=0.3)
    code, lines = run(
        "fraud-detection",
        body,
        small_fraud,
        tmp_path,
        parse_protocol_lines,
        target_column="Fraud",
        missing_values="remove_rows",
        seed=7,
    )
    data = result_of(code, lines)
    assert (data["model"], data["model_type"]) == ("Logistic Regression", "Classical")
    assert {"accuracy", "precision", "recall", "f1", "roc_auc", "pr_auc"} <= set(data["metrics"])
    assert data["metrics"]["f1"] == data["metrics"]["fMeasure"]
    # remove_rows dropped the three rows with an empty V1.
    assert data["dataset"]["rows_used"] == 997
    frame = pd.read_csv(small_fraud).dropna().reset_index(drop=True)
    _, test_idx = stratified_split(frame["Fraud"].to_numpy(), 0.3, seed=7)
    test = frame.iloc[test_idx]
    (tn, fp), (fn, tp) = data["confusion_matrix"]
    assert tn + fp == int((test["Fraud"] == 0).sum())
    assert fn + tp == int((test["Fraud"] == 1).sum())
    # The majority class (not fraud) flags nothing: accuracy is the share of genuine test rows.
    assert data["baseline"]["name"] == "majority class"
    assert data["baseline"]["metrics"]["accuracy"] == pytest.approx((tn + fp) / len(test))
    assert data["baseline"]["metrics"]["recall"] == 0.0
    assert {c["type"] for c in data["charts"]} >= {"confusion_matrix", "line"}
    # The decision threshold chosen on validation rows travels with the output, with its test precision.
    threshold = data["training_data"]["threshold"]
    assert threshold["rule"] == "f1"
    assert threshold["test_precision"] == data["metrics"]["precision"]
    assert any("decision threshold" in line.get("message", "") for line in lines if line["type"] == "log")

    card = read_model_card(tmp_path)
    assert (card["framework"], card["target"], card["missing_values"]) == ("sklearn", "Fraud", "remove_rows")
    assert "Fraud" not in card["features"]
    actual, predicted = load_fitted(tmp_path).predict_frame(test)
    pairs = list(zip(actual, predicted, strict=True))
    assert [
        [pairs.count((0.0, 0.0)), pairs.count((0.0, 1.0))],
        [pairs.count((1.0, 0.0)), pairs.count((1.0, 1.0))],
    ] == [
        [tn, fp],
        [fn, tp],
    ]


def test_fraud_recall_target_travels_in_the_envelope_to_the_threshold(
    small_fraud: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    """extension.recall_target (the form's Recall Target) passes the envelope schema and sets the rule."""
    body = classical_body("fraud-detection", model="Logistic Regression", test_ratio=0.3)
    code, lines = run(
        "fraud-detection",
        body,
        small_fraud,
        None,
        parse_protocol_lines,
        target_column="Fraud",
        recall_target=0.9,
    )
    threshold = result_of(code, lines)["training_data"]["threshold"]
    assert threshold["rule"] == "recall >= 0.9"
    assert threshold["validation_recall"] >= 0.9
    # Outside the form's 0.5..0.99 it is refused by the envelope schema, naming the field.
    code, lines = run(
        "fraud-detection",
        body,
        small_fraud,
        None,
        parse_protocol_lines,
        target_column="Fraud",
        recall_target=0.3,
    )
    assert refusal(code, lines)["field"] == "/extension/recall_target"


def test_fraud_without_the_target_column_is_refused_naming_it(
    small_fraud: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    body = classical_body("fraud-detection", model="Logistic Regression")
    code, lines = run("fraud-detection", body, small_fraud, None, parse_protocol_lines)  # default: Class
    error = refusal(code, lines)
    assert error["field"] == "/extension/target_column"
    assert "'Class'" in error["message"]


# --- portfolio optimization -----------------------------------------------------------------------


def test_portfolio_classical_finds_the_best_selection_next_to_the_average_one(
    parse_protocol_lines: Callable[[str], Lines],
) -> None:
    body = classical_body("portfolio-optimization")
    dataset = SAMPLES / "five_companies_stock.csv"
    code, lines = run("portfolio-optimization", body, dataset, None, parse_protocol_lines)
    data = result_of(code, lines)
    assert (data["model"], data["model_type"]) == ("Classical", "Classical")
    # By hand: daily returns, mean and covariance, every pair of the five stocks.
    names = body["stocks_names"]
    returns = pd.read_csv(dataset)[names].pct_change().iloc[1:].to_numpy()
    mu, sigma, q = returns.mean(axis=0), np.cov(returns, rowvar=False), body["risk_factor"]
    objectives = {}
    for pair in itertools.combinations(range(len(names)), body["budget"]):
        x = np.zeros(len(names))
        x[list(pair)] = 1
        objectives[tuple(names[i] for i in pair)] = float(q * x @ sigma @ x - mu @ x)
    best = min(objectives, key=lambda k: objectives[k])
    assert tuple(data["selection"]["assets"]) == best
    assert data["metrics"]["objective"] == pytest.approx(objectives[best])
    assert data["baseline"]["metrics"]["objective"] == pytest.approx(np.mean(list(objectives.values())))
    assert data["trained_model_path"] is None
    assert [c["type"] for c in data["charts"]] == ["bar", "bar", "heatmap"]
    emitted = {line["name"]: line["value"] for line in lines if line["type"] == "metric"}
    assert emitted == data["metrics"]


def test_portfolio_unknown_stock_is_refused_naming_it(parse_protocol_lines: Callable[[str], Lines]) -> None:
    body = classical_body("portfolio-optimization", stocks_names=["AAPL", "TSLA"])
    code, lines = run(
        "portfolio-optimization", body, SAMPLES / "five_companies_stock.csv", None, parse_protocol_lines
    )
    error = refusal(code, lines)
    assert error["field"] == "/params/stocks_names"
    assert "TSLA" in error["message"]


def test_portfolio_qaoa_is_scored_next_to_the_exact_optimum(
    parse_protocol_lines: Callable[[str], Lines],
) -> None:
    pytest.importorskip("qmlstudio_worker.problems.portfolio_optimization.quantum_solver")
    body = classical_body("portfolio-optimization")
    classical = result_of(
        *run("portfolio-optimization", body, SAMPLES / "five_companies_stock.csv", None, parse_protocol_lines)
    )
    quantum_body = {
        **body,
        "model": "QAOA",
        "use_quantum_simulator": True,
        "quantum_device_backend": "aer_simulator_statevector",
        "optimizer_alg": "COBYLA",
        "optimizer_alg_maxiter": 30,
        "circuit_repetition": 1,
    }
    code, lines = run(
        "portfolio-optimization",
        quantum_body,
        SAMPLES / "five_companies_stock.csv",
        None,
        parse_protocol_lines,
    )
    data = result_of(code, lines)
    assert (data["model"], data["model_type"]) == ("QAOA", "Quantum")
    # The baseline is the exact optimum, the classical run's answer.
    assert data["baseline"]["name"] == "exact optimum (enumeration)"
    assert data["baseline"]["metrics"] == pytest.approx(classical["metrics"])
    assert data["selection"]["exact_selection"] == classical["selection"]["assets"]
    assert len(data["selection"]["assets"]) == body["budget"]
    assert data["metrics"]["objective"] >= classical["metrics"]["objective"] - 1e-12
    # how close it came to the optimum is a metric of the result and a live metric, not only a log line
    solver = data["selection"]["solver_details"]
    assert data["metrics"]["optimum_probability"] == pytest.approx(solver["optimum_probability"])
    assert data["metrics"]["optimality_gap"] == pytest.approx(
        data["metrics"]["objective"] - classical["metrics"]["objective"]
    )
    assert 0 <= data["metrics"]["optimum_probability"] <= data["metrics"]["feasible_probability"] <= 1
    live = {line["name"] for line in lines if line["type"] == "metric"}
    assert {"optimum_probability", "optimality_gap", "feasible_probability"} <= live
    percents = [line["percent"] for line in lines if line["type"] == "progress"]
    assert percents == sorted(percents)
    titles = [line["chart"]["title"] for line in lines if line["type"] == "chart"]
    assert len(titles) == len(set(titles)) == len(data["charts"])


def test_fraud_vqc_is_wired_through_the_handler_and_its_model_loads(
    small_fraud: Path, tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    pytest.importorskip("qmlstudio_worker.quantum.variational_classifier")
    path = REPO_ROOT / "src" / "generated" / "fixtures" / "fraud-detection.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Quantum"]
    body = {**request["body"], "optimizer_alg_maxiter": 10, "circuit_repetition": 1}
    code, lines = run(
        "fraud-detection", body, small_fraud, tmp_path, parse_protocol_lines, target_column="Fraud"
    )
    data = result_of(code, lines)
    assert (data["model"], data["model_type"]) == ("Variational Quantum Classifier", "Quantum")
    assert data["baseline"]["name"] == "majority class"
    assert {"f1", "fMeasure", "roc_auc"} <= set(data["metrics"])
    (tn, fp), (fn, tp) = data["confusion_matrix"]
    assert tn + fp + fn + tp == data["training_data"]["test_rows"]
    assert read_model_card(tmp_path)["target"] == "Fraud"
    actual, predicted = load_fitted(tmp_path).predict_frame(pd.read_csv(small_fraud).head(50))
    assert len(actual) == len(predicted) == 50
    # the dataset line counts the rows the run used: its training rows, the validation rows that chose
    # the decision threshold and the test rows it scored
    training = data["training_data"]
    validation_rows = training["threshold"]["validation_rows"]
    assert validation_rows > 0
    assert data["dataset"]["rows_used"] == (
        training["train_rows_used"] + validation_rows + training["test_rows_scored"]
    )


def test_the_dataset_line_of_a_qsvc_counts_the_capped_kernel_rows_not_the_whole_file(
    small_fraud: Path, tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    pytest.importorskip("qmlstudio_worker.quantum.kernel_classifier")
    from qmlstudio_worker.quantum import kernel_classifier as qsvc

    path = REPO_ROOT / "src" / "generated" / "fixtures" / "fraud-detection.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == "example with model_type Quantum"]
    # a tenth for testing: of the other 900 rows a quarter chooses the threshold and 675 exceed the cap
    body = {**request["body"], "model": qsvc.MODEL, "circuit_repetition": 1, "test_ratio": 0.1}
    code, lines = run(
        "fraud-detection", body, small_fraud, tmp_path, parse_protocol_lines, target_column="Fraud"
    )
    data = result_of(code, lines)
    training = data["training_data"]
    assert training["train_rows"] > qsvc.MAX_KERNEL_ROWS  # the cap binds: the kernel is 600 rows
    assert training["train_rows_used"] == qsvc.MAX_KERNEL_ROWS
    assert training["test_rows_scored"] == training["test_rows"]
    validation_rows = training["threshold"]["validation_rows"]
    assert validation_rows > 0  # the held-out quarter that chose the decision threshold
    assert data["dataset"]["rows_used"] == qsvc.MAX_KERNEL_ROWS + validation_rows + training["test_rows"]
    assert data["dataset"]["rows_used"] < len(pd.read_csv(small_fraud))


def test_a_gpu_request_is_answered_with_where_the_job_ran(
    parse_protocol_lines: Callable[[str], Lines],
) -> None:
    body = classical_body("portfolio-optimization", device="GPU")
    code, lines = run(
        "portfolio-optimization", body, SAMPLES / "five_companies_stock.csv", None, parse_protocol_lines
    )
    result_of(code, lines)
    warnings = [line["message"] for line in lines if line["type"] == "log" and line["level"] == "warning"]
    assert any(
        message.startswith("Device GPU requested") and "ran on the CPU" in message for message in warnings
    )


def test_quantum_shots_exact_on_statevector_simulators_sampled_on_qasm() -> None:
    from qmlstudio_worker.jobs.support import quantum_shots

    body = {"use_quantum_simulator": True, "quantum_shots": 1024}
    assert quantum_shots({**body, "quantum_device_backend": "aer_simulator_statevector"}) is None
    assert quantum_shots({**body, "quantum_device_backend": "statevector_simulator"}) is None
    assert quantum_shots({**body, "quantum_device_backend": "qasm_simulator"}) == 1024


def test_quantum_bodies_asking_for_a_device_are_refused_and_noisy_runs_are_sampled() -> None:
    import pytest

    from qmlstudio_worker.errors import JobValidationError
    from qmlstudio_worker.jobs.support import quantum_shots

    with pytest.raises(JobValidationError) as device:
        quantum_shots({"use_quantum_simulator": False, "quantum_device_backend": "ibm_brisbane"})
    assert device.value.field == "/params/use_quantum_simulator"
    assert "real IBM quantum device" in device.value.message
    exact = {"use_quantum_simulator": True, "quantum_device_backend": "aer_simulator_statevector"}
    assert quantum_shots({**exact, "quantum_shots": 512}, "fake_brisbane") == 512
    assert quantum_shots(exact, "fake_brisbane") == 1024
