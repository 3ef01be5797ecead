"""What a forecaster's input window holds besides the features the user selected.

A one-step-ahead forecaster reads, for each of the ``window`` rows before the target:

- the selected training features and the prediction feature's own value (a forecaster always sees the
  series it forecasts, whatever extra features are selected; it is added when the selection leaves it
  out), each as its change from the row before (``differenced``), normalized on the training part's
  changes. Levels would leave the training range wherever the test part trends beyond it (a price
  falling below its training minimum), and a network fed such inputs extrapolates; changes stay within
  the range they were fitted on. Models saved before this read levels (``differenced`` false);
- calendar features of the row it forecasts (the row after each window row, whose date is known in
  advance) when the data has a date column: day of week for daily rows, week of year for weekly rows,
  month of year for monthly rows, each as a point on a circle (sine, cosine) so the year's end meets its
  start; and the data's own holiday flag of that row where it has one (a column named like
  ``IsHoliday``);
- when the rows are regular (nearly every step between dates is the same) and a whole season fits in the
  training part: the change the seasonal-naive forecast makes for that row (the value one season before
  it, minus the window row's value), in the units of the target's change, or no change where the data
  does not reach a season back. A network can then follow the season where it helps.

Only the forecaster's inputs change: the forms, the selected features and the model card's features stay
the user's. The plan is decided from the training data and saved with the model, so inference builds the
same inputs from a CSV with the same columns (and the date column).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd  # type: ignore[import-untyped]

FloatArray = np.ndarray[Any, np.dtype[np.float64]]

DATE_COLUMNS = ("Date", "date", "Datetime", "datetime", "timestamp")
#: Season length (rows) and calendar feature per regular step in days.
_SEASONS = {1: (7, "day_of_week"), 7: (52, "week_of_year"), 30: (12, "month_of_year")}
#: Share of date steps that must equal the usual step for the rows to count as regular.
REGULAR_SHARE = 0.9
_TRUE = {"true", "1", "1.0", "yes", "y", "t"}


def date_column_of(frame: pd.DataFrame) -> str | None:
    return next((c for c in DATE_COLUMNS if c in frame.columns), None)


def holiday_column_of(frame: pd.DataFrame) -> str | None:
    """The data's own holiday flag: a column whose name contains 'holiday' with yes/no values."""
    for column in frame.columns:
        if "holiday" in str(column).lower():
            values = frame[column].dropna().astype(str).str.strip().str.lower()
            if len(values) and values.isin(_TRUE | {"false", "0", "0.0", "no", "n", "f"}).all():
                return str(column)
    return None


def _step_days(dates: pd.Series) -> tuple[int | None, bool]:
    """(the usual step between dates in whole days, whether the rows are regular)."""
    steps = dates.diff().dropna()
    if not len(steps):
        return None, False
    days = steps.dt.total_seconds() / 86400.0
    usual = float(days.median())
    regular = bool(np.mean(np.isclose(days, usual, atol=0.5)) >= REGULAR_SHARE)
    if usual <= 1.5:
        return 1, regular
    if 6.5 <= usual <= 7.5:
        return 7, regular
    if 27.5 <= usual <= 31.5:
        # Month lengths differ: monthly rows are regular when every step is a calendar month.
        months = dates.dt.year * 12 + dates.dt.month
        return 30, bool(np.mean(months.diff().dropna() == 1) >= REGULAR_SHARE)
    return None, False


@dataclass
class ForecastInputs:
    """The plan of a forecaster's inputs (saved with the model as ``to_dict``)."""

    training_features: list[str]
    prediction_feature: str
    date_column: str | None = None
    calendar: str | None = None  # day_of_week, week_of_year or month_of_year
    holiday_column: str | None = None
    season_length: int | None = None
    #: The numeric columns enter as one-step changes (True for every new plan; False in older saved models).
    differenced: bool = False
    columns: list[str] = field(
        default_factory=list
    )  # the numeric columns: features, then the target if absent

    def __post_init__(self) -> None:
        if not self.columns:
            self.columns = list(dict.fromkeys([*self.training_features, self.prediction_feature]))

    @property
    def extra_width(self) -> int:
        return (
            (2 if self.calendar else 0) + (1 if self.holiday_column else 0) + (1 if self.season_length else 0)
        )

    @property
    def width(self) -> int:
        """Values per window row."""
        return len(self.columns) + self.extra_width

    def numeric_rows(self, values: pd.DataFrame) -> FloatArray:
        """(rows, len(columns)): the numeric columns as the window reads them, each row's change from the
        row before (0 on the first row) when ``differenced``, else the values themselves."""
        levels: FloatArray = np.asarray(values[self.columns].to_numpy(dtype="float64"), dtype=np.float64)
        if not self.differenced:
            return levels
        changes: FloatArray = np.zeros_like(levels)
        changes[1:] = np.diff(levels, axis=0)
        return changes

    def describe(self) -> str:
        """One sentence for the run's log."""
        numeric = f"the selected features ({', '.join(self.training_features)})"
        if self.prediction_feature not in self.training_features:
            numeric += f" and {self.prediction_feature}'s own recent values"
        if self.differenced:
            numeric += ", each as its change from the row before"
        parts = [numeric]
        if self.calendar:
            parts.append(
                f"the {self.calendar.replace('_', ' ')} of the forecast row (from {self.date_column})"
            )
        if self.holiday_column:
            parts.append(f"its holiday flag ({self.holiday_column})")
        if self.season_length:
            parts.append(f"the seasonal-naive change ({self.season_length} rows back)")
        return "forecaster inputs per window row: " + "; ".join(parts)

    def extra_inputs(self, frame: pd.DataFrame, target: FloatArray, scale_change: Any) -> FloatArray:
        """(rows, extra_width): the calendar, holiday and seasonal inputs of each row of ``frame``, each
        describing the row after it (the last row's are those of its successor where computable, else 0).
        ``target`` is the prediction feature's (imputed) values, ``scale_change`` maps a change in its units
        to the network's scaled target."""
        n = len(frame)
        out: list[FloatArray] = []
        if self.calendar:
            if self.date_column is None or self.date_column not in frame.columns:
                raise ValueError(
                    f"this model reads the {self.date_column} column (calendar features); the data has none"
                )
            dates = pd.to_datetime(frame[self.date_column], errors="coerce")
            if self.calendar == "day_of_week":
                phase, period = dates.dt.day_of_week.to_numpy(dtype="float64"), 7.0
            elif self.calendar == "week_of_year":
                phase, period = dates.dt.isocalendar().week.to_numpy(dtype="float64"), 52.1775
            else:
                phase, period = dates.dt.month.to_numpy(dtype="float64") - 1, 12.0
            angle = _next(np.nan_to_num(2 * np.pi * phase / period))
            out += [np.sin(angle), np.cos(angle)]
        if self.holiday_column:
            if self.holiday_column not in frame.columns:
                raise ValueError(f"this model reads the {self.holiday_column} column; the data has none")
            flags = frame[self.holiday_column].astype(str).str.strip().str.lower().isin(_TRUE)
            out.append(_next(flags.to_numpy(dtype="float64")))
        if self.season_length:
            season = self.season_length
            change = np.zeros(n)  # no change where the data does not reach a season back
            rows = np.arange(n - 1)
            reach = rows + 1 - season >= 0
            change[rows[reach]] = target[rows[reach] + 1 - season] - target[rows[reach]]
            out.append(np.asarray(scale_change(change), dtype="float64").reshape(-1))
        if not out:
            return np.zeros((n, 0))
        return np.stack(out, axis=1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "training_features": list(self.training_features),
            "prediction_feature": self.prediction_feature,
            "date_column": self.date_column,
            "calendar": self.calendar,
            "holiday_column": self.holiday_column,
            "season_length": self.season_length,
            "differenced": self.differenced,
            "columns": list(self.columns),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ForecastInputs:
        return cls(
            training_features=list(data["training_features"]),
            prediction_feature=str(data["prediction_feature"]),
            date_column=data.get("date_column"),
            calendar=data.get("calendar"),
            holiday_column=data.get("holiday_column"),
            season_length=data.get("season_length"),
            differenced=bool(data.get("differenced", False)),
            columns=list(data.get("columns") or []),
        )


def _next(values: FloatArray) -> FloatArray:
    """Each row gets the next row's value (the row it forecasts); the last row keeps its own."""
    if len(values) == 0:
        return values
    return np.concatenate([values[1:], values[-1:]])


def plan_inputs(
    frame: pd.DataFrame,
    training_features: Sequence[str],
    prediction_feature: str,
    train_rows: int,
    *,
    window: int,
    seasonal: bool = True,
) -> ForecastInputs:
    """The inputs for this data: calendar features when it has a date column, its holiday flag, and the
    seasonal lag when the rows are regular and the training part holds a season and a window beyond it."""
    date_column = date_column_of(frame)
    calendar = season = None
    if date_column is not None:
        dates = pd.to_datetime(frame[date_column], errors="coerce")
        if dates.notna().all():
            step, regular = _step_days(dates)
            if step in _SEASONS:
                length, calendar = _SEASONS[step]
                if seasonal and regular and train_rows > length + window:
                    season = length
    return ForecastInputs(
        training_features=list(training_features),
        prediction_feature=prediction_feature,
        date_column=date_column if calendar else None,
        calendar=calendar,
        holiday_column=holiday_column_of(frame),
        season_length=season,
        differenced=True,
    )
