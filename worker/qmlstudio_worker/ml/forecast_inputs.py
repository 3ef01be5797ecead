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

The seasonal reference of weekly rows can be aligned on Easter (``easter_aligned``): a week's reference
is last year's week at the same distance from Easter, not the week 52 rows back, wherever either of them
lies within :data:`EASTER_WEEKS` weeks of its year's Good Friday. It is aligned when, on the training
part's targets, the aligned reference has the lower squared error (:func:`easter_alignment_helps`): a
series without an Easter effect keeps the week 52 rows back. Easter is the moving holiday of retail
calendars (it moves by up to five weeks from one year to the next: March 22 to April 25) and its date is
known years ahead (the computus, :func:`easter_sunday`), so the forecast of an Easter week is made from
last year's Easter week. Holidays on a fixed date or weekday (Super Bowl, Labor Day, Thanksgiving,
Christmas) stay 52 weeks apart. The network's target is the change from this reference, and the seasonal
input above reads the same reference.

Only the forecaster's inputs change: the forms, the selected features and the model card's features stay
the user's. The plan is decided from the training data and saved with the model, so inference builds the
same inputs from a CSV with the same columns (and the date column).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
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
#: Weeks on either side of Good Friday's week that count as Easter's (a week and its reference are aligned on
#: Easter when either lies this close to its year's Good Friday). Chosen on the training part of the demand
#: sample (store 1, department 1): Easter lifts the week ending on Good Friday and the weeks just before and
#: after it (2010 and 2011 alike); two weeks leaves a week's margin on each side.
EASTER_WEEKS = 2


def easter_sunday(year: int) -> date:
    """Western (Gregorian) Easter Sunday of ``year``: the anonymous Gregorian computus."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    weekday = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * weekday) // 451
    month, day = divmod(h + weekday - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _weeks_from_good_friday(day: pd.Timestamp, year: int) -> int:
    good_friday = pd.Timestamp(easter_sunday(year)) - pd.Timedelta(days=2)
    days = int((day.normalize() - good_friday).days)
    return round(days / 7)


def reference_rows(dates: pd.Series | None, season: int, easter_aligned: bool) -> np.ndarray[Any, Any]:
    """Each row's reference row (the row whose value seasonal naive forecasts it with), -1 where the data
    does not reach back: ``season`` rows before it, or, with ``easter_aligned`` and weekly ``dates``, the row
    of last year's week at the same distance from Easter when that week or the week ``season`` rows back
    lies within :data:`EASTER_WEEKS` of its Good Friday (and that row is in the data)."""
    n = 0 if dates is None else len(dates)
    positions = np.arange(n if dates is not None else 0)
    reference = positions - season
    if easter_aligned and dates is not None and n:
        days = pd.to_datetime(dates, errors="coerce").reset_index(drop=True)
        for row in range(season, n):
            here, back = days[row], days[row - season]
            if pd.isna(here) or pd.isna(back):
                continue
            offset = _weeks_from_good_friday(here, here.year)
            offset_back = _weeks_from_good_friday(back, here.year - 1)
            if abs(offset) > EASTER_WEEKS and abs(offset_back) > EASTER_WEEKS:
                continue
            # last year's week at the same distance from its Good Friday: (offset - offset_back) rows on
            # from the week a season back, when the rows are one week apart
            aligned = row - season + offset - offset_back
            if 0 <= aligned < row:
                reference[row] = aligned
    reference[reference < 0] = -1
    return reference


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
    #: The seasonal reference of weekly rows is last year's week at the same distance from Easter near it.
    easter_aligned: bool = False
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

    def reference_rows(self, frame: pd.DataFrame) -> np.ndarray[Any, Any]:
        """Each row's reference row in ``frame`` (see :func:`reference_rows`): a season back, aligned on
        Easter when planned; the row before without a season."""
        dates = frame[self.date_column] if self.date_column and self.date_column in frame.columns else None
        if self.easter_aligned and dates is None:
            raise ValueError(
                f"this model reads the {self.date_column} column (Easter dates); the data has none"
            )
        season = self.season_length or 1
        if dates is None:
            reference = np.arange(len(frame)) - season
            reference[reference < 0] = -1
            return reference
        return reference_rows(dates, season, self.easter_aligned and bool(self.season_length))

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
            back = f"{self.season_length} rows back"
            if self.easter_aligned:
                back += "; around Easter, last year's week as far from Easter"
            parts.append(f"the seasonal-naive change ({back})")

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
            change = np.zeros(n)  # no change where the data does not reach a season back
            following = self.reference_rows(frame)[1:]  # the reference of the row each row forecasts
            rows = np.arange(n - 1)
            reach = following >= 0
            change[rows[reach]] = target[following[reach]] - target[rows[reach]]
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
            "easter_aligned": self.easter_aligned,
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
            easter_aligned=bool(data.get("easter_aligned", False)),
            differenced=bool(data.get("differenced", False)),
            columns=list(data.get("columns") or []),
        )


def easter_alignment_helps(dates: pd.Series, target: pd.Series, train_rows: int, season: int) -> bool:
    """Whether the seasonal reference aligned on Easter forecasts the training part's targets better (lower
    squared error) than the value ``season`` rows back: weekly series whose Easter weeks move with Easter
    (retail) are aligned, those without an Easter effect are not. Only the training rows are read."""
    values = pd.to_numeric(target.iloc[:train_rows], errors="coerce").to_numpy(dtype="float64")
    aligned = reference_rows(dates.iloc[:train_rows], season, easter_aligned=True)
    rows = np.arange(season, len(values))
    moved = rows[aligned[rows] != rows - season]  # the rows whose reference the alignment changes
    if not len(moved):
        return False
    plain_error = (values[moved] - values[moved - season]) ** 2
    aligned_error = (values[moved] - values[aligned[moved]]) ** 2
    finite = np.isfinite(plain_error) & np.isfinite(aligned_error)
    return bool(finite.any() and aligned_error[finite].sum() < plain_error[finite].sum())


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
        easter_aligned=season == _SEASONS[7][0]
        and date_column is not None
        and easter_alignment_helps(frame[date_column], frame[prediction_feature], train_rows, season),
        differenced=True,
    )
