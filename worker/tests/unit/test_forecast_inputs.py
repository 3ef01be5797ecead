"""What a forecaster reads beyond the selected features: its own target, calendar and holiday inputs, the
seasonal reference, the epoch kept on held-out training windows, and the verdict against the best baseline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from qmlstudio_worker.ml.artifacts import load_fitted, save_fitted
from qmlstudio_worker.ml.forecast_inputs import easter_sunday, plan_inputs, reference_rows
from qmlstudio_worker.ml.forecast_metrics import baseline_verdict, evaluate_forecast
from qmlstudio_worker.ml.recurrent import (
    beats_reference,
    prepare_windows,
    train_epochs,
    train_recurrent_forecaster,
)

REPO = Path(__file__).resolve().parents[3]


def _weekly(rows: int, seed: int = 0) -> pd.DataFrame:
    """A weekly series with a strong yearly pattern and a holiday flag; 'noise' is unrelated to it."""
    rng = np.random.default_rng(seed)
    dates = pd.date_range("2010-02-05", periods=rows, freq="7D")
    week = np.arange(rows)
    sales = 3000 + 1000 * np.sin(2 * np.pi * week / 52) + rng.normal(0, 10, rows)
    return pd.DataFrame(
        {
            "Date": dates.strftime("%Y-%m-%d"),
            "Sales": sales,
            "IsHoliday": ["TRUE" if w % 52 == 42 else "FALSE" for w in week],
            "noise": rng.normal(0, 1, rows),
        }
    )


def test_the_plan_reads_the_data_dates_holiday_flag_and_season() -> None:
    demand = pd.read_csv(REPO / "samples" / "product_demand.csv").iloc[:100]
    plan = plan_inputs(demand, ["Temperature", "CPI"], "Weekly_Sales", 70, window=10)
    assert plan.columns == ["Temperature", "CPI", "Weekly_Sales"]  # the target is always read
    assert (plan.calendar, plan.holiday_column, plan.season_length) == ("week_of_year", "IsHoliday", 52)
    assert plan.width == 3 + 2 + 1 + 1
    # The run's log says what the window reads, the numeric inputs as changes.
    assert plan.describe() == (
        "forecaster inputs per window row: the selected features (Temperature, CPI) and Weekly_Sales's own "
        "recent values, each as its change from the row before; the week of year of the forecast row (from "
        "Date); its holiday flag (IsHoliday); the seasonal-naive change (52 rows back; around Easter, last "
        "year's week as far from Easter)"
    )
    assert plan.easter_aligned
    # A season needs a window of training rows beyond it.
    assert plan_inputs(demand, ["CPI"], "Weekly_Sales", 60, window=10).season_length is None
    # Trading days are not regular (weekends): day of week, no season; a selected target is not repeated.
    stock = pd.read_csv(REPO / "samples" / "apple_google_stock.csv").iloc[:300]
    plan = plan_inputs(stock, ["Close", "Open"], "Close", 200, window=10)
    assert (plan.columns, plan.calendar, plan.season_length, plan.holiday_column) == (
        ["Close", "Open"],
        "day_of_week",
        None,
        None,
    )
    assert plan_inputs(stock.drop(columns=["Date"]), ["Open"], "Close", 200, window=10).calendar is None


def test_windows_hold_the_target_the_forecast_rows_calendar_and_holiday() -> None:
    frame = _weekly(120)
    data = prepare_windows(
        frame,
        ["noise"],
        "Sales",
        from_index=None,
        to_index=None,
        train_share=0.7,
        window=5,
        missing_values="impute_average",
        normalization="[0,1]",
        seed=0,
    )
    assert data.inputs is not None
    assert data.input_width == 2 + 2 + 1 + 1
    last_row = data.x_test[0, -1]  # the window row before the first test target (row test_start - 1)
    t = data.test_start
    # The target enters as its change from the row before, scaled on the training part's changes.
    sales = data.full["Sales"].to_numpy()
    changes = np.diff(sales[:t])
    expected = (sales[t - 1] - sales[t - 2] - changes.min()) / (changes.max() - changes.min())
    assert last_row[1] == pytest.approx(expected)
    week = pd.Timestamp(frame["Date"][t]).isocalendar().week  # the calendar of the row it forecasts
    assert last_row[2] == pytest.approx(np.sin(2 * np.pi * week / 52.1775))
    assert last_row[4] == (1.0 if frame["IsHoliday"][t] == "TRUE" else 0.0)


def test_a_seasonal_series_is_forecast_from_its_season_not_the_last_value() -> None:
    # Only the unrelated feature is selected: the forecaster still reads the series and its season.
    result, fitted = train_recurrent_forecaster(
        _weekly(130),
        model="LSTM",
        training_features=["noise"],
        prediction_feature="Sales",
        train_share=0.7,
        epochs=5,
        learning_rate=0.01,
        hidden_layers=8,
        season_length=52,
        seed=1,
    )
    rmse = result["metrics"]["rmse"]
    assert fitted.reference_lag == 52
    assert rmse < 0.5 * result["baselines"]["persistence"]["rmse"]
    assert rmse < 1.2 * result["baselines"]["seasonal_naive"]["rmse"]


def test_a_seasonal_model_saved_and_loaded_forecasts_the_rows_a_season_in(tmp_path: Path) -> None:
    frame = _weekly(130)
    _, fitted = train_recurrent_forecaster(
        frame,
        model="GRU",
        training_features=["noise"],
        prediction_feature="Sales",
        train_share=0.7,
        epochs=2,
        learning_rate=0.01,
        hidden_layers=4,
        seed=0,
    )
    save_fitted(tmp_path, fitted, "demand-forecasting")
    actual, predicted = load_fitted(tmp_path).predict_frame(frame)
    assert len(actual) == len(predicted) == len(frame) - 52
    assert actual[0] == pytest.approx(frame["Sales"][52])
    assert np.allclose(predicted, fitted.predict(frame))
    with pytest.raises(ValueError, match="IsHoliday"):
        fitted.predict(frame.drop(columns=["IsHoliday"]))


def test_the_kept_epoch_is_the_one_best_on_held_out_training_windows() -> None:
    # The fitted windows pull the output up to 1, the held-out ones (the last fifth) want 0: the untrained
    # network (output 0) is the best on them, so its weights come back after training.
    torch.manual_seed(0)
    network = torch.nn.Linear(3, 1)
    torch.nn.init.zeros_(network.weight)
    torch.nn.init.zeros_(network.bias)

    class Flat(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.head = network

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(x).squeeze(-1)

    model = Flat()
    x = torch.ones(20, 3)
    y = torch.cat([torch.ones(16), torch.zeros(4)])
    losses = train_epochs(
        model,
        torch.optim.SGD(model.parameters(), lr=0.1),
        torch.nn.MSELoss(),
        (x, y),
        (x[:2], y[:2]),
        epochs=5,
        batch_size=8,
        generator=torch.Generator().manual_seed(0),
        emit=None,
        epoch_label="epoch",
    )
    assert len(losses[0]) == 5
    assert losses[2] == 0
    assert float(model(x[:1]).detach()) == 0.0
    # Without the held-out part the same training ends away from 0.
    train_epochs(
        model,
        torch.optim.SGD(model.parameters(), lr=0.1),
        torch.nn.MSELoss(),
        (x, y),
        (x[:2], y[:2]),
        epochs=5,
        batch_size=8,
        generator=torch.Generator().manual_seed(0),
        emit=None,
        epoch_label="epoch",
        validation_share=0.0,
    )
    assert float(model(x[:1]).detach()) > 0.3


def test_a_trained_epoch_must_beat_the_reference_by_more_than_one_standard_error() -> None:
    reference = np.array([1.0, 1.0, 1.0, 1.0, 1.0])
    # Better on every held-out window: kept.
    assert beats_reference(reference, np.array([0.5, 0.6, 0.4, 0.5, 0.7]))[0] is True
    # A lower mean that one lucky window makes (the others worse): within the noise, not kept.
    lucky = np.array([0.0, 0.0, 1.1, 1.2, 1.3])
    assert lucky.mean() < reference.mean()
    beats, t_value = beats_reference(reference, lucky)
    assert beats is False
    assert 0 < t_value < 1
    assert beats_reference(reference, reference)[0] is False


def test_an_epoch_best_on_held_out_windows_by_chance_falls_back_to_the_reference() -> None:
    # The held-out windows' targets are 0 and 2 around the untrained output 1 (= the reference); the
    # fitted windows pull the output to 1.2: the trained epochs lower the held-out loss on the windows
    # whose target is 2 and raise it on the others, less than one standard error in all.
    class Flat(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.head = torch.nn.Linear(1, 1)
            torch.nn.init.zeros_(self.head.weight)
            torch.nn.init.ones_(self.head.bias)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(x).squeeze(-1)

    model = Flat()
    x = torch.zeros(25, 1)
    y = torch.cat([torch.full((20,), 1.2), torch.tensor([2.0, 0.0, 2.0, 0.0, 2.0])])
    _, _, kept = train_epochs(
        model,
        torch.optim.SGD(model.parameters(), lr=0.2),
        torch.nn.MSELoss(),
        (x, y),
        (x[:2], y[:2]),
        epochs=5,
        batch_size=25,
        generator=torch.Generator().manual_seed(0),
        emit=None,
        epoch_label="epoch",
    )
    assert kept == 0
    assert float(model(x[:1]).detach()) == 1.0


def test_a_test_part_that_jumps_outside_the_training_range_is_forecast_from_its_changes() -> None:
    # The window reads changes, not levels: the test part 5000 higher than the training part (far outside
    # the training range) gets, once the jump has left the window, exactly the forecasts of the series
    # without the jump, 5000 higher. A network reading levels would extrapolate instead.
    frame = _weekly(90)
    common = {
        "model": "GRU",
        "training_features": ["Sales"],
        "prediction_feature": "Sales",
        "train_share": 0.6,
        "epochs": 3,
        "learning_rate": 0.05,
        "hidden_layers": 4,
        "seed": 0,
    }
    result, fitted = train_recurrent_forecaster(frame, **common)
    test_start = result["data"]["train_rows"]
    jumped = frame.copy()
    jumped.loc[test_start:, "Sales"] += 5000.0
    moved, _ = train_recurrent_forecaster(jumped, **common)
    assert moved["loss"]["train"] == result["loss"]["train"]  # the test part never trains anything
    after = result["data"]["window"] + 1  # the first test target whose window starts after the jump
    assert np.allclose(
        np.array(moved["data"]["predicted"][after:]) - 5000.0, result["data"]["predicted"][after:]
    )
    rows = test_start + after - fitted.first_target  # predict() starts at the model's first target row
    assert np.allclose(fitted.predict(jumped)[rows:] - 5000.0, fitted.predict(frame)[rows:])


def test_the_verdict_names_the_best_baseline_in_one_sentence() -> None:
    baselines = {"persistence": {"rmse": 6835.4}, "seasonal_naive": {"rmse": 2881.3}}
    lost = baseline_verdict("LSTM", {"rmse": 2900.0}, baselines)
    assert lost is not None
    assert lost["beats"] is False
    assert lost["baseline"] == "seasonal naive"
    assert (
        lost["sentence"]
        == "LSTM did not beat its best baseline, seasonal naive: test RMSE 2900 against 2881.3."
    )
    won = baseline_verdict("Quantum", {"rmse": 2800.0}, baselines)
    assert won is not None
    assert won["beats"] is True
    assert won["sentence"].startswith("Quantum beat its best")
    assert baseline_verdict("LSTM", {"rmse": None}, baselines) is None
    # A network left at its reference forecast matches it to float32 rounding: a tie, not a win.
    tie = baseline_verdict("LSTM", {"rmse": 2881.2999}, baselines)
    assert tie is not None
    assert tie["beats"] is False


def test_easter_sunday_is_the_computus() -> None:
    known = {2010: (4, 4), 2011: (4, 24), 2012: (4, 8), 2019: (4, 21), 2024: (3, 31), 2038: (4, 25)}
    for year, (month, day) in known.items():
        assert (easter_sunday(year).month, easter_sunday(year).day) == (month, day)


def test_the_weekly_reference_is_last_years_week_as_far_from_easter() -> None:
    demand = pd.read_csv(REPO / "samples" / "product_demand.csv").iloc[:143]
    dates = demand["Date"]
    reference = reference_rows(dates, 52, easter_aligned=True)
    plain = reference_rows(dates, 52, easter_aligned=False)
    assert (plain[52:] == np.arange(52, 143) - 52).all()
    assert (plain[:52] == -1).all()
    row = {d: i for i, d in enumerate(dates)}
    # The weeks ending on Good Friday: 2010-04-02, 2011-04-22, 2012-04-06.
    assert reference[row["2011-04-22"]] == row["2010-04-02"]
    assert reference[row["2012-04-06"]] == row["2011-04-22"]
    assert reference[row["2012-04-13"]] == row["2011-04-29"]  # the week after Easter
    # 2011-04-01 lies 3 weeks before its Good Friday, but 52 weeks back is 2010's Good Friday week: it takes
    # 2010's week 3 weeks before Easter instead of the Easter peak.
    assert reference[row["2011-04-01"]] == row["2010-03-12"]
    # Far from Easter, and for fixed holidays (Thanksgiving), the week 52 rows back.
    assert reference[row["2011-11-25"]] == row["2010-11-26"]
    assert reference[row["2012-07-06"]] == row["2011-07-08"]
    # Every reference is an earlier row.
    assert all(reference[t] < t for t in range(143))
    # The alignment is chosen on the training part: the demand sample's Easter weeks move with Easter; a
    # series without an Easter effect (a smooth yearly wave) keeps the week 52 rows back.
    assert plan_inputs(demand, ["CPI"], "Weekly_Sales", 100, window=10).easter_aligned
    assert not plan_inputs(_weekly(143), ["noise"], "Sales", 100, window=10).easter_aligned
    # Without dates there is no season to align.
    assert not plan_inputs(
        demand.drop(columns=["Date"]), ["CPI"], "Weekly_Sales", 100, window=10
    ).easter_aligned


def test_an_easter_aligned_forecaster_reports_its_reference_as_a_baseline() -> None:
    demand = pd.read_csv(REPO / "samples" / "product_demand.csv").iloc[:143]
    result, fitted = train_recurrent_forecaster(
        demand,
        model="LSTM",
        training_features=["CPI"],
        prediction_feature="Weekly_Sales",
        train_share=0.7,
        epochs=1,
        learning_rate=0.01,
        hidden_layers=4,
        seed=0,
        season_length=52,
        torch_threads=1,
    )
    baselines = result["baselines"]
    sales = demand["Weekly_Sales"].to_numpy(dtype=float)
    reference = reference_rows(demand["Date"], 52, easter_aligned=True)
    expected = evaluate_forecast(sales, sales[reference[100:]], 100, 52, reference)
    assert baselines["seasonal_naive_easter"] == pytest.approx(expected["seasonal_naive_easter"])
    # The test part holds Easter 2012 (two weeks before 2011's): the aligned reference keeps it in place.
    assert baselines["seasonal_naive_easter"]["rmse"] < baselines["seasonal_naive"]["rmse"] / 2
    # The network is a residual on the aligned reference: inference reads the same rows.
    assert result["data"]["inputs"]["easter_aligned"] is True
    predicted = fitted.predict(demand)
    assert predicted[100 - 52 :] == pytest.approx(result["data"]["predicted"], rel=1e-5)
    # The verdict names the best baseline for people.
    verdict = baseline_verdict("LSTM", result["metrics"], baselines)
    assert verdict is not None
    label = "seasonal naive, Easter aligned"
    assert verdict["baseline"] == label
    assert label in verdict["sentence"]
