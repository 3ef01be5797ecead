"""Preprocessing shared by the classical models: row range, missing values, splits, normalization.

The form's options (``schemas/defs.json``): ``splitter`` ``from_index``..``to_index`` (1-based,
inclusive), ``missingValues`` ``"impute_average"`` | ``"random_values"`` | ``"remove_rows"`` and
``normalization`` ``"[0,1]"`` | ``"[-1,1]"``. Everything that learns from the data (the imputer's means
and ranges, the normalizer's minimum and maximum) is fitted on the training part only and then applied
unchanged to the test part, so nothing about the test rows leaks into training.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np
import pandas as pd  # type: ignore[import-untyped]

Normalization = Literal["[0,1]", "[-1,1]"]
MissingValues = Literal["impute_average", "random_values", "remove_rows"]

NORMALIZATIONS: tuple[str, ...] = ("[0,1]", "[-1,1]")
MISSING_VALUES: tuple[str, ...] = ("impute_average", "random_values", "remove_rows")

_RANGES: dict[str, tuple[float, float]] = {"[0,1]": (0.0, 1.0), "[-1,1]": (-1.0, 1.0)}


def _whole_number(name: str, value: float) -> int:
    """The schema types the row indices as numbers; accept 5 and 5.0, refuse 5.5."""
    if isinstance(value, bool) or not isinstance(value, int | float) or float(value) != int(value):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    return int(value)


def select_rows(frame: pd.DataFrame, from_index: float, to_index: float) -> pd.DataFrame:
    """Rows ``from_index``..``to_index`` of ``frame``, 1-based and inclusive (the form's splitter).

    The result is re-indexed from 0. ``to_index`` beyond the last row is an error, as in the form.
    """
    start = _whole_number("from_index", from_index)
    end = _whole_number("to_index", to_index)
    if start < 1:
        raise ValueError(f"from_index must be at least 1, got {start}")
    if end < start:
        raise ValueError(f"to_index ({end}) must be greater than or equal to from_index ({start})")
    if end > len(frame):
        raise ValueError(f"to_index ({end}) cannot exceed the number of rows ({len(frame)})")
    return frame.iloc[start - 1 : end].reset_index(drop=True)


def require_columns(frame: pd.DataFrame, columns: Sequence[str]) -> None:
    """Refuse, naming them, columns the dataset lacks."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"the dataset has no column(s): {', '.join(missing)}")


def numeric_features(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``columns`` of ``frame`` as float64; non-numeric columns are refused by name."""
    require_columns(frame, columns)
    selected = frame.loc[:, list(columns)]
    bad = [c for c in columns if not pd.api.types.is_numeric_dtype(selected[c])]
    if bad:
        raise ValueError(f"feature column(s) are not numeric: {', '.join(bad)}")
    return selected.astype("float64")


def drop_missing_rows(frame: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """``frame`` without the rows that have an empty cell in ``columns`` (all columns when None)."""
    subset = list(columns) if columns is not None else None
    return frame.dropna(subset=subset).reset_index(drop=True)


@dataclass
class MissingValueImputer:
    """Fills empty cells from statistics of the training part.

    ``impute_average``: the column's training mean. ``random_values``: uniform draws between the column's
    training minimum and maximum, from a generator seeded with ``seed``. ``remove_rows`` is not an
    imputation: use :func:`drop_missing_rows` before splitting.
    """

    strategy: MissingValues
    seed: int = 0
    means: dict[str, float] = field(default_factory=dict)
    lows: dict[str, float] = field(default_factory=dict)
    highs: dict[str, float] = field(default_factory=dict)
    _rng: np.random.Generator | None = field(default=None, repr=False)

    def fit(self, train: pd.DataFrame) -> MissingValueImputer:
        if self.strategy not in ("impute_average", "random_values"):
            raise ValueError(f"cannot impute with strategy {self.strategy!r}")
        for column in train.columns:
            values = train[column].to_numpy(dtype="float64")
            finite = values[~np.isnan(values)]
            if finite.size == 0:
                raise ValueError(f"column {column} has no values in the training part")
            self.means[str(column)] = float(finite.mean())
            self.lows[str(column)] = float(finite.min())
            self.highs[str(column)] = float(finite.max())
        self._rng = np.random.default_rng(self.seed)
        return self

    def transform(self, frame: pd.DataFrame) -> pd.DataFrame:
        if not self.means:
            raise RuntimeError("MissingValueImputer.transform before fit")
        out = frame.copy()
        for column in out.columns:
            key = str(column)
            mask = out[column].isna().to_numpy()
            if not mask.any():
                continue
            if self.strategy == "impute_average":
                out.loc[mask, column] = self.means[key]
            else:
                if self._rng is None:
                    self._rng = np.random.default_rng(self.seed)
                draws = self._rng.uniform(self.lows[key], self.highs[key], size=int(mask.sum()))
                out.loc[mask, column] = draws
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON for the scaler artifact: everything :meth:`from_dict` needs to fill cells again."""
        return {
            "strategy": self.strategy,
            "seed": self.seed,
            "means": dict(self.means),
            "lows": dict(self.lows),
            "highs": dict(self.highs),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MissingValueImputer:
        means = {str(k): float(v) for k, v in data["means"].items()}
        return cls(
            strategy=data["strategy"],
            seed=int(data.get("seed", 0)),
            means=means,
            lows={str(k): float(v) for k, v in data.get("lows", means).items()},
            highs={str(k): float(v) for k, v in data.get("highs", means).items()},
        )


@dataclass
class MinMaxNormalizer:
    """Scales each column linearly from its training [min, max] into ``[0,1]`` or ``[-1,1]``.

    Fitted on the training part only: test values outside the training range map outside the target
    range (they are not clipped). A column constant in the training part maps to the range's lower bound.
    """

    normalization: Normalization = "[0,1]"
    data_min: np.ndarray[Any, np.dtype[np.float64]] | None = None
    data_max: np.ndarray[Any, np.dtype[np.float64]] | None = None

    @property
    def feature_range(self) -> tuple[float, float]:
        if self.normalization not in _RANGES:
            raise ValueError(f"normalization must be one of {NORMALIZATIONS}, got {self.normalization!r}")
        return _RANGES[self.normalization]

    def fit(self, train: np.ndarray[Any, Any] | pd.DataFrame) -> MinMaxNormalizer:
        values = np.asarray(train, dtype="float64")
        if values.ndim == 1:
            values = values.reshape(-1, 1)
        if values.shape[0] == 0:
            raise ValueError("cannot fit a normalizer on an empty training part")
        if np.isnan(values).any():
            raise ValueError("handle missing values before normalizing")
        _ = self.feature_range  # validates the option
        self.data_min = values.min(axis=0)
        self.data_max = values.max(axis=0)
        return self

    def _scale(self) -> tuple[np.ndarray[Any, np.dtype[np.float64]], np.ndarray[Any, np.dtype[np.float64]]]:
        if self.data_min is None or self.data_max is None:
            raise RuntimeError("MinMaxNormalizer used before fit")
        low, high = self.feature_range
        span = self.data_max - self.data_min
        safe = np.where(span == 0, 1.0, span)
        scale = np.where(span == 0, 0.0, (high - low) / safe)
        return scale, self.data_min

    def transform(self, frame: np.ndarray[Any, Any] | pd.DataFrame) -> np.ndarray[Any, np.dtype[np.float64]]:
        values = np.asarray(frame, dtype="float64")
        flat = values.ndim == 1
        if flat:
            values = values.reshape(-1, 1)
        scale, data_min = self._scale()
        low, _ = self.feature_range
        out = cast("np.ndarray[Any, np.dtype[np.float64]]", (values - data_min) * scale + low)
        return out.ravel() if flat else out

    def inverse_transform(
        self, scaled: np.ndarray[Any, Any] | pd.DataFrame
    ) -> np.ndarray[Any, np.dtype[np.float64]]:
        values = np.asarray(scaled, dtype="float64")
        flat = values.ndim == 1
        if flat:
            values = values.reshape(-1, 1)
        if self.data_min is None or self.data_max is None:
            raise RuntimeError("MinMaxNormalizer used before fit")
        low, high = self.feature_range
        span = self.data_max - self.data_min
        out = cast(
            "np.ndarray[Any, np.dtype[np.float64]]", (values - low) / (high - low) * span + self.data_min
        )
        return out.ravel() if flat else out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON for the scaler artifact."""
        if self.data_min is None or self.data_max is None:
            raise RuntimeError("MinMaxNormalizer used before fit")
        return {
            "normalization": self.normalization,
            "data_min": [float(v) for v in self.data_min],
            "data_max": [float(v) for v in self.data_max],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MinMaxNormalizer:
        return cls(
            normalization=data["normalization"],
            data_min=np.asarray(data["data_min"], dtype="float64"),
            data_max=np.asarray(data["data_max"], dtype="float64"),
        )


def time_ordered_split(frame: pd.DataFrame, train_share: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The first ``train_share`` of the rows for training, the rest for testing, order kept (no shuffle)."""
    if not 0 < train_share < 1:
        raise ValueError(f"train share must be between 0 and 1 (exclusive), got {train_share}")
    cut = round(len(frame) * train_share)
    if cut < 1 or cut >= len(frame):
        raise ValueError(
            f"{len(frame)} rows with train share {train_share} leave the training or test part empty"
        )
    return frame.iloc[:cut].reset_index(drop=True), frame.iloc[cut:].reset_index(drop=True)


def stratified_split(
    labels: Sequence[Any] | np.ndarray[Any, Any] | pd.Series, test_ratio: float, seed: int = 0
) -> tuple[np.ndarray[Any, np.dtype[np.intp]], np.ndarray[Any, np.dtype[np.intp]]]:
    """Row positions (train, test) with each class in the same proportion in both parts (seeded shuffle).

    Every class needs at least two rows so that both parts can hold one.
    """
    if not 0 < test_ratio < 1:
        raise ValueError(f"test ratio must be between 0 and 1 (exclusive), got {test_ratio}")
    from sklearn.model_selection import train_test_split  # type: ignore[import-untyped]

    y = np.asarray(labels)
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise ValueError("the target column has a single class in the selected rows")
    rare = [str(c) for c, n in zip(classes, counts, strict=True) if n < 2]
    if rare:
        raise ValueError(f"class(es) {', '.join(rare)} have fewer than 2 rows; select more rows")
    n_test = int(np.ceil(len(y) * test_ratio))
    if n_test < classes.size or len(y) - n_test < classes.size:
        raise ValueError(f"{len(y)} rows with test ratio {test_ratio} cannot hold every class in both parts")
    positions = np.arange(len(y))
    train_idx, test_idx = train_test_split(
        positions, test_size=n_test, stratify=y, random_state=seed, shuffle=True
    )
    return np.sort(np.asarray(train_idx, dtype=np.intp)), np.sort(np.asarray(test_idx, dtype=np.intp))


@dataclass
class PreparedData:
    """Features and labels after preprocessing, with the fitted imputer and normalizer."""

    x_train: np.ndarray[Any, np.dtype[np.float64]]
    x_test: np.ndarray[Any, np.dtype[np.float64]]
    y_train: np.ndarray[Any, Any]
    y_test: np.ndarray[Any, Any]
    features: list[str]
    normalizer: MinMaxNormalizer
    imputer: MissingValueImputer | None
    rows_selected: int
    rows_removed: int

    def summary(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "rows_selected": self.rows_selected,
            "rows_removed": self.rows_removed,
            "train_rows": len(self.y_train),
            "test_rows": len(self.y_test),
        }


def prepare_classification(
    frame: pd.DataFrame,
    target: str,
    *,
    test_ratio: float,
    features: Sequence[str] | None = None,
    normalization: Normalization = "[0,1]",
    missing_values: MissingValues = "impute_average",
    from_index: float | None = None,
    to_index: float | None = None,
    seed: int = 0,
) -> PreparedData:
    """Row range, stratified split, missing values and normalization (both fitted on training rows).

    ``features`` defaults to every column but ``target``. Rows without a label are always dropped.
    """
    if missing_values not in MISSING_VALUES:
        raise ValueError(f"missing_values must be one of {MISSING_VALUES}, got {missing_values!r}")
    require_columns(frame, [target])
    if from_index is not None or to_index is not None:
        frame = select_rows(frame, from_index or 1, to_index if to_index is not None else len(frame))
    feature_list = [str(c) for c in frame.columns if c != target] if features is None else list(features)
    if target in feature_list:
        raise ValueError(f"the target column {target} cannot also be a feature")
    x_frame = numeric_features(frame, feature_list)
    labels = frame[target]
    selected = len(frame)
    keep = np.array(labels.notna().to_numpy(), dtype=bool)
    if missing_values == "remove_rows":
        keep &= ~x_frame.isna().any(axis=1).to_numpy()
    x_frame = x_frame.loc[keep].reset_index(drop=True)
    y = labels.loc[keep].to_numpy()
    train_idx, test_idx = stratified_split(y, test_ratio, seed)
    x_train_frame = x_frame.iloc[train_idx]
    x_test_frame = x_frame.iloc[test_idx]
    imputer: MissingValueImputer | None = None
    if missing_values != "remove_rows":
        imputer = MissingValueImputer(missing_values, seed=seed).fit(x_train_frame)
        x_train_frame = imputer.transform(x_train_frame)
        x_test_frame = imputer.transform(x_test_frame)
    normalizer = MinMaxNormalizer(normalization).fit(x_train_frame)
    return PreparedData(
        x_train=normalizer.transform(x_train_frame),
        x_test=normalizer.transform(x_test_frame),
        y_train=y[train_idx],
        y_test=y[test_idx],
        features=feature_list,
        normalizer=normalizer,
        imputer=imputer,
        rows_selected=selected,
        rows_removed=int(selected - keep.sum()),
    )
