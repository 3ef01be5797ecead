"""`python -m qmlstudio_worker forecast`: a saved forecaster continued step by step, each step fed the
earlier forecasts, for the classical recurrent network and the hybrid quantum forecaster alike."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import WarmWorker

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.rolling_forecast import parse_request, run_forecast
from qmlstudio_worker.ml.artifacts import load_fitted, save_fitted
from qmlstudio_worker.ml.recurrent import train_recurrent_forecaster
from qmlstudio_worker.protocol import EXIT_OK, EXIT_VALIDATION_ERROR, Emitter
from qmlstudio_worker.quantum.hybrid import train_quantum_forecaster

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[3]
JPM_CSV = REPO_ROOT / "samples" / "market" / "JPM.csv"  # closes only: the other columns are empty


def forecast(request: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    stream = io.StringIO()
    code = run_forecast(json.dumps(request), Emitter(stream))
    return code, [json.loads(line) for line in stream.getvalue().splitlines()]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("forecast")
    rows = pd.read_csv(JPM_CSV).tail(120).reset_index(drop=True)[["Date", "Close"]]
    common = {"training_features": ["Close"], "prediction_feature": "Close", "train_share": 0.8}
    _r, lstm = train_recurrent_forecaster(
        rows, model="LSTM", epochs=2, learning_rate=0.01, hidden_layers=8, seed=42, torch_threads=1, **common
    )
    save_fitted(base / "lstm", lstm, "stock-price-prediction")
    _q, hybrid = train_quantum_forecaster(rows, qubits=3, epochs=1, learning_rate=0.01, seed=42, **common)
    save_fitted(base / "hybrid", hybrid, "stock-price-prediction")
    return {"lstm": base / "lstm", "hybrid": base / "hybrid"}


@pytest.mark.parametrize("kind", ["lstm", "hybrid"])
def test_each_step_is_the_model_forecast_of_the_window_before_it(models: dict[str, Path], kind: str) -> None:
    code, lines = forecast({"model_dir": str(models[kind]), "dataset": {"path": str(JPM_CSV)}, "steps": 5})
    assert code == EXIT_OK, lines
    data = lines[-1]["data"]
    predicted = data["predicted"]
    assert len(predicted) == 5
    assert all(np.isfinite(predicted))
    history = pd.read_csv(JPM_CSV)
    assert data["last_actual"] == history["Close"].iloc[-1]
    # JPM's history ends on Wednesday 2022-12-28: the next trading days skip the weekend.
    assert data["dates"] == ["2022-12-29", "2022-12-30", "2023-01-02", "2023-01-03", "2023-01-04"]
    # Step 3 is what the model says about the history plus steps 1 and 2 as rows (with their dates).
    fitted = load_fitted(models[kind]).fitted  # type: ignore[attr-defined]
    frame = pd.DataFrame(
        {
            "Date": [*history["Date"].tail(80), "2022-12-29", "2022-12-30", "2023-01-02"],
            "Close": [*history["Close"].tail(80), predicted[0], predicted[1], predicted[1]],
        }
    )
    assert fitted.predict(frame)[-1] == pytest.approx(predicted[2], rel=1e-9)


def test_the_command_answers_through_the_cli(models: dict[str, Path], warm_worker: WarmWorker) -> None:
    # The forecast command in a process of its own: a child of the session's warm worker (conftest.py).
    request = {"model_dir": str(models["lstm"]), "dataset": {"path": str(JPM_CSV)}, "steps": 2}
    done = warm_worker.command("forecast", request)
    assert done.returncode == EXIT_OK, done.stderr
    assert len(json.loads(done.stdout.splitlines()[-1])["data"]["predicted"]) == 2


def test_requests_are_checked_by_field(models: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(JobValidationError) as steps:
        parse_request(json.dumps({"model_dir": "x", "dataset": {"path": "y"}, "steps": 0}))
    assert steps.value.field == "/steps"
    code, lines = forecast({"model_dir": str(tmp_path), "dataset": {"path": str(JPM_CSV)}, "steps": 1})
    assert code == EXIT_VALIDATION_ERROR
    assert lines[-1]["field"] == "/model_dir"
