"""Classical recurrent forecasters for stock price prediction (and demand forecasting): LSTM, GRU, RNN.

One-step-ahead forecasts: a window of the last ``window`` rows of the (normalized) training features
predicts the next value of the prediction feature. The rows are split in time order (the first
``train_share`` for training, the rest for testing; nothing is shuffled across the split). The imputer
and the normalizers are fitted on the training rows only; the windows that predict the first test
targets look back into the training rows, as a forecast made on that day would. Predictions are
mapped back to the prediction feature's units before scoring, and the metrics are shown next to the
persistence baseline (tomorrow = today) on exactly the same targets (:mod:`.forecast_metrics`).

Residual on persistence (``target_mode="change"``, the default since model format 2): the network does
not predict the LEVEL of the prediction feature but its CHANGE from the last known value,
``y_hat[t] = y[t-1] + f(window)``. The target normalizer is fitted on the training part's one-step
changes, so a trending series whose test values leave the training range can still be forecast (a level
scaled by the training [min, max] cannot reach them), and a network that learns nothing stays close to
persistence. It lives in one place for the classical and the hybrid forecasters: :func:`prepare_windows`
(the scaled targets), :func:`to_levels` (the inverse transform, training and inference) and
:meth:`FittedForecaster.predict`, which reads the prediction feature's previous values from the frame.
A saved model without ``target_mode`` (format 1) predicts levels (``target_mode="level"``), as before.

The same seed gives the same metrics: ``torch.manual_seed``, a seeded generator for the batch order
(shuffled within the training windows only) and deterministic algorithms during training. torch is
imported inside the functions so that importing this module (and validating a job body) stays fast.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd  # type: ignore[import-untyped]

from qmlstudio_worker.ml.forecast_inputs import ForecastInputs, plan_inputs
from qmlstudio_worker.ml.forecast_metrics import (
    Metrics,
    emit_metrics,
    evaluate_forecast,
    persistence_forecast,
    seasonal_naive_forecast,
)
from qmlstudio_worker.ml.preprocess import (
    MISSING_VALUES,
    MinMaxNormalizer,
    MissingValueImputer,
    MissingValues,
    Normalization,
    numeric_features,
    select_rows,
    time_ordered_split,
)
from qmlstudio_worker.protocol import Emitter

RECURRENT_MODELS: tuple[str, ...] = ("LSTM", "GRU", "RNN")
DEFAULT_WINDOW = 10
DEFAULT_BATCH_SIZE = 32
#: "change": the network predicts y[t] - y[t-1] (residual on persistence); "level": y[t] (format 1 models).
TARGET_MODES: tuple[str, ...] = ("change", "level")
DEFAULT_TARGET_MODE = "change"
FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def _round(value: float) -> float:
    return float(round(float(value), 10))


@contextmanager
def torch_settings(threads: int | None, *, deterministic: bool = True) -> Iterator[None]:
    """torch's intra-op thread count (when given) and, when ``deterministic``, its deterministic
    algorithms for the block; the previous global settings are restored afterwards. The switch imports
    torch's compiler stack (seconds on a busy machine), so a model whose operations are deterministic
    anyway (the hybrid QNN's matmul and index_select on the CPU) passes ``deterministic=False``."""
    import torch

    was_deterministic = torch.are_deterministic_algorithms_enabled()
    previous_threads = torch.get_num_threads()
    if deterministic:
        torch.use_deterministic_algorithms(True)
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        if deterministic:
            torch.use_deterministic_algorithms(was_deterministic)
        if threads is not None:
            torch.set_num_threads(previous_threads)


def check_training_arguments(learning_rate: float, missing_values: str, **counts: int) -> None:
    """Refuse an unknown missing-values rule, a non-positive learning rate or a count (epochs, window,
    batch size, qubits) that is not a positive integer, naming it."""
    if missing_values not in MISSING_VALUES:
        raise ValueError(f"missing_values must be one of {MISSING_VALUES}, got {missing_values!r}")
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not learning_rate > 0:
        raise ValueError(f"learning_rate must be positive, got {learning_rate!r}")


def build_network(model: str, n_features: int, hidden_size: int) -> Any:
    """An ``nn.Module``: one recurrent layer of ``hidden_size`` units (the form's hidden_layers) and a
    linear head on the last time step's hidden state. Input (batch, window, features) -> (batch,)."""
    import torch
    from torch import nn

    if model not in RECURRENT_MODELS:
        raise ValueError(f"unknown recurrent model {model!r}; expected one of {', '.join(RECURRENT_MODELS)}")
    if hidden_size < 1:
        raise ValueError(f"hidden_layers must be a positive integer, got {hidden_size}")
    layers: dict[str, type[nn.Module]] = {"LSTM": nn.LSTM, "GRU": nn.GRU, "RNN": nn.RNN}

    class RecurrentRegressor(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.recurrent = layers[model](
                input_size=n_features, hidden_size=hidden_size, num_layers=1, batch_first=True
            )
            self.head = nn.Linear(hidden_size, 1)
            nn.init.zeros_(self.head.weight)  # see start_at_reference

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            output, _ = self.recurrent(x)
            result: torch.Tensor = self.head(output[:, -1, :]).squeeze(-1)
            return result

    return RecurrentRegressor()


def start_at_reference(network: Any, data: ForecastWindows) -> None:
    """Set the output layer (``network.head``, its weights zero) to the scaled value of "no change": the
    untrained forecaster is then exactly the persistence forecast it is a residual on, and training moves
    it away only as far as the data supports (the kept epoch is chosen on held-out windows)."""
    import torch

    if data.target_mode != "change":
        return
    no_change = float(data.target_normalizer.transform(np.zeros(1))[0])
    with torch.no_grad():
        network.head.weight.zero_()
        network.head.bias.fill_(no_change)


def sliding_windows(
    features: FloatArray, target: FloatArray, window: int, targets_from: int, targets_to: int
) -> tuple[FloatArray, FloatArray]:
    """Windows ``features[t - window : t]`` and targets ``target[t]`` for t in [targets_from, targets_to)."""
    if targets_from < window:
        raise ValueError(f"the first target needs {window} earlier rows, it has {targets_from}")
    positions = range(targets_from, targets_to)
    x = np.stack([features[t - window : t] for t in positions]) if len(positions) else np.empty((0,))
    y = np.asarray([target[t] for t in positions], dtype="float64")
    return x.astype("float64"), y


def to_levels(
    scaled: FloatArray, target_normalizer: MinMaxNormalizer, target_mode: str, last: FloatArray
) -> FloatArray:
    """The network's (scaled) outputs in the prediction feature's units: the inverse-transformed level
    ("level"), or the previous value ``last`` plus the inverse-transformed change ("change")."""
    if target_mode not in TARGET_MODES:
        raise ValueError(f"target_mode must be one of {TARGET_MODES}, got {target_mode!r}")
    values = np.asarray(
        target_normalizer.inverse_transform(np.asarray(scaled, dtype="float64")), dtype="float64"
    )
    if target_mode == "level":
        return values
    return np.asarray(np.asarray(last, dtype="float64") + values, dtype="float64")


@dataclass
class FittedForecaster:
    """What inference needs: the network, its configuration, the imputer and both normalizers."""

    model: str
    network: Any
    training_features: list[str]
    prediction_feature: str
    window: int
    hidden_layers: int
    feature_normalizer: MinMaxNormalizer
    target_normalizer: MinMaxNormalizer
    imputer: MissingValueImputer | None
    target_mode: str = "level"  # what a saved model without the key (format 1) predicts
    #: The window's inputs beyond the selected features (the target, calendar, holiday, season); None for
    #: models saved before them (their windows hold the selected features only).
    inputs: ForecastInputs | None = None

    def windows(self, frame: pd.DataFrame) -> tuple[FloatArray, FloatArray]:
        """(windows, last): the normalized windows for rows ``window``.. of ``frame`` and the prediction
        feature's value on the row before each (imputed as in training), for :func:`to_levels`."""
        columns = list(dict.fromkeys([*self.training_features, self.prediction_feature]))
        values = numeric_features(frame, columns if self.target_mode == "change" else self.training_features)
        if self.imputer is not None:
            values = self.imputer.transform(values)  # per column, from the training statistics
        elif values.isna().to_numpy().any():
            raise ValueError("the data has empty cells; remove them first")
        if self.inputs is not None:
            target = values[self.prediction_feature].to_numpy(dtype="float64")
            scaled = np.concatenate(
                [
                    self.feature_normalizer.transform(self.inputs.numeric_rows(values)),
                    self.inputs.extra_inputs(frame, target, self.target_normalizer.transform),
                ],
                axis=1,
            )
        else:
            scaled = self.feature_normalizer.transform(values[self.training_features])
        first = self.first_target
        if len(scaled) <= first:
            raise ValueError(f"inference needs more than {first} rows, got {len(scaled)}")
        x, _ = sliding_windows(scaled, np.zeros(len(scaled)), self.window, first, len(scaled))
        last = np.zeros(len(x))
        if self.target_mode == "change":
            reference = self.reference_rows(frame)
            last = values[self.prediction_feature].to_numpy(dtype="float64")[reference[first : len(scaled)]]
        return x, last

    def reference_rows(self, frame: pd.DataFrame) -> np.ndarray[Any, Any]:
        """Each row's reference row: the row before (persistence), or a season back (aligned on Easter when
        the inputs say so)."""
        if self.inputs is not None:
            return self.inputs.reference_rows(frame)
        reference = np.arange(len(frame)) - 1
        reference[reference < 0] = -1
        return reference

    @property
    def reference_lag(self) -> int:
        """The rows back of the value the forecast is a change from: 1 (persistence), or the season when
        the inputs hold one (seasonal naive)."""
        return self.inputs.season_length if self.inputs is not None and self.inputs.season_length else 1

    @property
    def first_target(self) -> int:
        """The first row this model forecasts: a window, and a season, after the first row."""
        return max(self.window, self.reference_lag)

    def predict(self, frame: pd.DataFrame) -> FloatArray:
        """Next-value forecasts of the prediction feature for rows ``window``.. of ``frame`` (each from
        the ``window`` rows before it), in the prediction feature's units."""
        import torch

        x, last = self.windows(frame)
        self.network.eval()
        with torch.no_grad():
            out = self.network(torch.as_tensor(x, dtype=torch.float32)).double().numpy()
        return to_levels(out, self.target_normalizer, self.target_mode, last)

    def to_dict(self) -> dict[str, Any]:
        """The scaler artifact's JSON (the network's weights are saved with ``torch.save`` separately)."""
        return {
            "model": self.model,
            "training_features": list(self.training_features),
            "prediction_feature": self.prediction_feature,
            "window": self.window,
            "hidden_layers": self.hidden_layers,
            "feature_normalizer": self.feature_normalizer.to_dict(),
            "target_normalizer": self.target_normalizer.to_dict(),
            "imputer": self.imputer.to_dict() if self.imputer is not None else None,
            "target_mode": self.target_mode,
            "inputs": self.inputs.to_dict() if self.inputs is not None else None,
        }


def loss_chart(train_loss: Sequence[float], test_loss: Sequence[float]) -> dict[str, Any]:
    return {
        "type": "line",
        "title": "Training and test loss per epoch",
        "label": "MSE (normalized)",
        "series": [
            {"name": "train", "data": [_round(v) for v in train_loss]},
            {"name": "test", "data": [_round(v) for v in test_loss]},
        ],
        "categories": list(range(1, len(train_loss) + 1)),
    }


def actual_vs_predicted_chart(
    categories: Sequence[str | int | float],
    actual: Sequence[float],
    predicted: Sequence[float],
    baseline: Sequence[float],
    feature: str,
    seasonal: Sequence[float] | None = None,
) -> dict[str, Any]:
    series = [
        {"name": "actual", "data": [_round(v) for v in actual]},
        {"name": "predicted", "data": [_round(v) for v in predicted]},
        {"name": "persistence", "data": [_round(v) for v in baseline]},
    ]
    if seasonal is not None:
        series.append({"name": "seasonal naive", "data": [_round(v) for v in seasonal]})
    return {
        "type": "line",
        "title": f"Actual vs predicted {feature} (test part)",
        "label": feature,
        "series": series,
        "categories": list(categories),
    }


def history_chart(
    categories: Sequence[str | int | float], series: Sequence[float], test_start: int, feature: str
) -> dict[str, Any]:
    """The whole selected series, as two series (training and test rows) with gaps (null) elsewhere."""
    values = [_round(v) for v in series]
    train = [v if i < test_start else None for i, v in enumerate(values)]
    test = [v if i >= test_start else None for i, v in enumerate(values)]
    return {
        "type": "line",
        "title": f"{feature} history: training and test rows",
        "label": feature,
        "series": [{"name": "train", "data": train}, {"name": "test", "data": test}],
        "categories": list(categories),
    }


@dataclass
class ForecastWindows:
    """The rows of a one-step-ahead forecast job, prepared by :func:`prepare_windows`."""

    frame: pd.DataFrame  # the selected rows (without the removed ones), for the date column
    features: list[str]
    selected: int  # rows selected before any were removed
    test_start: int  # rows in the training part; the test part follows
    full: pd.DataFrame  # training then test rows, imputed
    imputer: MissingValueImputer | None
    feature_normalizer: MinMaxNormalizer
    target_normalizer: MinMaxNormalizer  # of the target_mode's quantity (the change, or the level)
    target_mode: str
    y_raw: FloatArray  # the prediction feature, in its units
    x_train: FloatArray
    y_train: FloatArray
    x_test: FloatArray
    y_test: FloatArray
    inputs: ForecastInputs | None = None

    @property
    def reference_lag(self) -> int:
        """1: the change from the last value (persistence); the season length when the inputs hold one:
        the change from the value a season before (seasonal naive)."""
        return self.inputs.season_length if self.inputs is not None and self.inputs.season_length else 1

    @property
    def input_width(self) -> int:
        """Values per window row."""
        return int(self.x_train.shape[2]) if self.x_train.ndim == 3 else len(self.features)

    def reference_rows(self) -> np.ndarray[Any, Any]:
        """Each row's reference row (see :meth:`ForecastInputs.reference_rows`); the row before without
        forecaster inputs."""
        if self.inputs is not None:
            return self.inputs.reference_rows(self.frame)
        reference = np.arange(len(self.y_raw)) - 1
        reference[reference < 0] = -1
        return reference

    @property
    def easter_aligned(self) -> bool:
        return bool(self.inputs is not None and self.inputs.season_length and self.inputs.easter_aligned)

    def levels(self, scaled: FloatArray) -> FloatArray:
        """The test windows' (scaled) network outputs in the prediction feature's units."""
        last = self.y_raw[self.reference_rows()[self.test_start :]]
        return to_levels(scaled, self.target_normalizer, self.target_mode, last)


def prepare_windows(
    frame: pd.DataFrame,
    training_features: Sequence[str],
    prediction_feature: str,
    *,
    from_index: float | None,
    to_index: float | None,
    train_share: float,
    window: int,
    missing_values: MissingValues,
    normalization: Normalization,
    seed: int,
    target_mode: str = DEFAULT_TARGET_MODE,
    forecaster_inputs: bool = True,
) -> ForecastWindows:
    """Select the rows, remove or impute missing values, split in time order, fit the normalizers on the
    training part and cut the (normalized) sliding windows of the training and the test targets. The
    targets are the one-step changes of the prediction feature (``target_mode="change"``, the target
    normalizer fitted on the training part's changes) or its levels ("level").

    With ``forecaster_inputs`` (change mode only) each window row also holds the target's own value, the
    forecast row's calendar and holiday flag and the seasonal-naive change (:mod:`.forecast_inputs`)."""
    if target_mode not in TARGET_MODES:
        raise ValueError(f"target_mode must be one of {TARGET_MODES}, got {target_mode!r}")
    if from_index is not None or to_index is not None:
        frame = select_rows(frame, from_index or 1, to_index if to_index is not None else len(frame))
    features = list(training_features)
    columns = list(dict.fromkeys([*features, prediction_feature]))
    values = numeric_features(frame, columns)
    selected = len(values)
    if missing_values == "remove_rows":
        keep = ~values.isna().any(axis=1).to_numpy()
        values = values.loc[keep].reset_index(drop=True)
        frame = frame.loc[keep].reset_index(drop=True)
    train_frame, test_frame = time_ordered_split(values, train_share)
    test_start = len(train_frame)
    if test_start <= window:
        raise ValueError(
            f"the training part has {test_start} rows; it needs more than the window of {window} rows"
        )
    imputer: MissingValueImputer | None = None
    if missing_values != "remove_rows":
        imputer = MissingValueImputer(missing_values, seed=seed).fit(train_frame)
        train_frame = imputer.transform(train_frame)
        test_frame = imputer.transform(test_frame)
    full = pd.concat([train_frame, test_frame], ignore_index=True)
    inputs: ForecastInputs | None = None
    if forecaster_inputs and target_mode == "change":
        inputs = plan_inputs(frame, features, prediction_feature, test_start, window=window)
    if inputs is not None:
        rows = inputs.numeric_rows(full)
        # Fitted on the training part's rows only (its changes start at its second row).
        fit_rows = rows[1:test_start] if inputs.differenced else rows[:test_start]
        feature_normalizer = MinMaxNormalizer(normalization).fit(fit_rows)
        x_scaled = feature_normalizer.transform(rows)
    else:
        feature_normalizer = MinMaxNormalizer(normalization).fit(train_frame[features])
        x_scaled = feature_normalizer.transform(full[features])
    y_raw = full[prediction_feature].to_numpy(dtype="float64")
    if target_mode == "change":
        # changes[t] = y[t] - y[reference[t]], the change from the reference forecast (the last value, or the
        # value a season before, aligned on Easter when planned); the first lag rows are never targets.
        lag = inputs.season_length if inputs is not None and inputs.season_length else 1
        reference = inputs.reference_rows(frame) if inputs is not None else np.arange(len(y_raw)) - 1
        changes = np.zeros(len(y_raw))
        changes[lag:] = y_raw[lag:] - y_raw[reference[lag:]]
        target_normalizer = MinMaxNormalizer(normalization).fit(changes[lag:test_start])
        y_scaled = target_normalizer.transform(changes)
    else:
        target_normalizer = MinMaxNormalizer(normalization).fit(train_frame[[prediction_feature]])
        y_scaled = target_normalizer.transform(y_raw)
    if inputs is not None:
        extra = inputs.extra_inputs(frame, y_raw, target_normalizer.transform)
        x_scaled = np.concatenate([x_scaled, extra], axis=1)
    first = max(window, lag) if target_mode == "change" else window
    if test_start - first < 2:
        raise ValueError(f"the training part has {test_start} rows; it needs more than {first + 1}")
    x_train, y_train = sliding_windows(x_scaled, y_scaled, window, first, test_start)
    x_test, y_test = sliding_windows(x_scaled, y_scaled, window, test_start, len(full))
    return ForecastWindows(
        frame=frame,
        features=features,
        selected=selected,
        test_start=test_start,
        full=full,
        imputer=imputer,
        feature_normalizer=feature_normalizer,
        target_normalizer=target_normalizer,
        target_mode=target_mode,
        y_raw=y_raw,
        x_train=x_train,
        y_train=y_train,
        x_test=x_test,
        y_test=y_test,
        inputs=inputs,
    )


#: The last fifth of the training windows choose the epoch whose weights are kept (see train_epochs).
VALIDATION_SHARE = 0.2


def beats_reference(reference_errors: Any, errors: Any) -> tuple[bool, float]:
    """Whether a trained network's squared errors on the held-out windows beat the reference's (the untrained
    network's) by more than one standard error of their paired differences, and that ratio (a t value).

    The epoch with the lowest held-out loss is the best of many tries on a handful of windows: some epoch
    beats the reference there by chance even when the network learned only noise. One standard error is
    the usual margin for preferring the more complex of two models (the "one-standard-error rule")."""
    differences = np.asarray(reference_errors, dtype=np.float64) - np.asarray(errors, dtype=np.float64)
    if len(differences) < 2:
        return bool(differences.sum() > 0), 0.0
    spread = float(differences.std(ddof=1)) / np.sqrt(len(differences))
    mean = float(differences.mean())
    if spread == 0:
        return mean > 0, float("inf") if mean > 0 else 0.0
    return bool(mean > spread), mean / spread


def held_out_windows(train_windows: int, share: float = VALIDATION_SHARE) -> int:
    """How many of the last training windows :func:`train_epochs` holds out to choose the epoch: 0 when
    no share is asked or fewer than two windows would be left to fit."""
    held = round(train_windows * share) if share > 0 else 0
    return held if held and train_windows - held >= 2 else 0


def train_epochs(
    network: Any,
    optimizer: Any,
    loss_fn: Any,
    train: tuple[Any, Any],
    test: tuple[Any, Any],
    *,
    epochs: int,
    batch_size: int,
    generator: Any,
    emit: Emitter | None,
    epoch_label: str,
    validation_share: float = VALIDATION_SHARE,
) -> tuple[list[float], list[float], int]:
    """Train ``network`` for ``epochs`` epochs of mini-batches (shuffled with ``generator`` within the
    training windows only) and return the (train, test) loss per epoch and the epoch whose weights the
    network keeps (``epochs`` without held-out windows). With ``emit``: ``train_loss`` and
    ``test_loss`` metrics with the epoch as step, and progress 5..90 labelled "<epoch_label> n/epochs".

    With ``validation_share``, the last share of the training windows (in time order) is held out: the
    network trains on the rest and keeps the weights of the epoch with the lowest loss on the held-out
    windows when it beats the untrained network (epoch 0) there by more than one standard error
    (:func:`beats_reference`), otherwise the untrained network's. The forecasters' untrained network is
    their reference forecast (a zero output layer: no change), so a network that only learns noise from a
    short series falls back to it instead of drifting away. The test part never chooses anything."""
    import copy

    import torch

    xt_train, yt_train = train
    xt_test, yt_test = test
    held = held_out_windows(len(yt_train), validation_share)
    if held:
        xt_fit, yt_fit = xt_train[:-held], yt_train[:-held]
        xt_val, yt_val = xt_train[-held:], yt_train[-held:]
    else:
        xt_fit, yt_fit = xt_train, yt_train

    def held_out_errors() -> Any:
        network.eval()
        with torch.no_grad():
            return ((network(xt_val) - yt_val) ** 2).double().numpy()

    reference = (held_out_errors(), copy.deepcopy(network.state_dict())) if held else None
    best = (float(reference[0].mean()), 0, reference[1], reference[0]) if reference is not None else None
    train_loss: list[float] = []
    test_loss: list[float] = []
    for epoch in range(1, epochs + 1):
        network.train()
        order = torch.randperm(len(yt_fit), generator=generator)  # within the training windows
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            optimizer.zero_grad()
            loss = loss_fn(network(xt_fit[batch]), yt_fit[batch])
            loss.backward()
            optimizer.step()
        network.eval()
        with torch.no_grad():
            train_loss.append(float(loss_fn(network(xt_train), yt_train)))
            test_loss.append(float(loss_fn(network(xt_test), yt_test)))
        if best is not None:
            errors = held_out_errors()
            if float(errors.mean()) < best[0]:
                best = (float(errors.mean()), epoch, copy.deepcopy(network.state_dict()), errors)
        if emit is not None:
            emit.metric("train_loss", train_loss[-1], step=epoch)
            emit.metric("test_loss", test_loss[-1], step=epoch)
            emit.progress(5 + 85 * epoch / epochs, f"{epoch_label} {epoch}/{epochs}")
    if best is not None and reference is not None:
        lowest = best[1]
        beats, t_value = beats_reference(reference[0], best[3]) if lowest else (False, 0.0)
        if lowest and not beats:
            best = (float(reference[0].mean()), 0, reference[1], reference[0])
        network.load_state_dict(best[2])
        network.eval()
        if emit is not None:
            untrained = "the untrained network (epoch 0: the reference forecast it is a residual on)"
            if best[1]:
                why = (
                    f"kept the weights of epoch {best[1]}: the lowest loss on the last {held} training "
                    f"windows, held out from the fit to choose it, below the reference's by "
                    f"{t_value:.2g} standard errors"
                )
            elif lowest:
                why = (
                    f"kept the weights of {untrained}: epoch {lowest} had the lowest loss on the last "
                    f"{held} training windows, held out from the fit, but beat the reference there by only "
                    f"{t_value:.2g} standard errors (less than one)"
                )
            else:
                why = (
                    f"kept the weights of {untrained}: no epoch had a lower loss on the last {held} "
                    f"training windows, held out from the fit to choose it"
                )
            emit.log(why)
    return train_loss, test_loss, best[1] if best is not None else epochs


def forecast_charts(
    frame: pd.DataFrame,
    date_column: str | None,
    y_raw: FloatArray,
    predicted: FloatArray,
    baseline: FloatArray,
    test_start: int,
    prediction_feature: str,
    losses: tuple[Sequence[float], Sequence[float]],
    seasonal: FloatArray | None = None,
) -> list[dict[str, Any]]:
    """The loss, actual-vs-predicted (with the persistence and, when given, the seasonal-naive baseline)
    and history charts; the categories are ``date_column``'s values when ``frame`` has it, else 1..n."""
    if date_column is not None and date_column in frame.columns:
        categories: list[str | int | float] = [str(v) for v in frame[date_column].tolist()]
    else:
        categories = list(range(1, len(y_raw) + 1))
    return [
        loss_chart(*losses),
        actual_vs_predicted_chart(
            categories[test_start:],
            y_raw[test_start:].tolist(),
            predicted.tolist(),
            baseline.tolist(),
            prediction_feature,
            seasonal.tolist() if seasonal is not None else None,
        ),
        history_chart(categories, y_raw.tolist(), test_start, prediction_feature),
    ]


def fit_and_predict(
    network: Any,
    data: ForecastWindows,
    settings: tuple[float, int, int, int],
    *,
    dtype: Any,
    epoch_label: str,
    emit: Emitter | None,
    predict: Callable[[Any], FloatArray] | None = None,
) -> tuple[tuple[list[float], list[float]], int, FloatArray]:
    """Train a forecaster network with Adam on the MSE of its windows, then predict the test windows
    (``predict`` of the test inputs, else the network itself): (losses, kept epoch, scaled outputs).
    ``settings`` is (learning rate, epochs, batch size, seed)."""
    import torch

    learning_rate, epochs, batch_size, seed = settings
    x_test = torch.as_tensor(data.x_test, dtype=dtype)
    train_loss, test_loss, kept_epoch = train_epochs(
        network,
        torch.optim.Adam(network.parameters(), lr=learning_rate),
        torch.nn.MSELoss(),
        (torch.as_tensor(data.x_train, dtype=dtype), torch.as_tensor(data.y_train, dtype=dtype)),
        (x_test, torch.as_tensor(data.y_test, dtype=dtype)),
        epochs=epochs,
        batch_size=batch_size,
        generator=torch.Generator().manual_seed(seed),
        emit=emit,
        epoch_label=epoch_label,
    )
    with torch.no_grad():
        predicted = predict(x_test) if predict is not None else network(x_test).double().numpy()
    return (train_loss, test_loss), kept_epoch, np.asarray(predicted, dtype=np.float64)


def scored_forecast(
    data: ForecastWindows,
    predicted_scaled: FloatArray,
    losses: tuple[list[float], list[float]],
    kept_epoch: int,
    *,
    window: int,
    season: int | None,
    seasonal_chart: bool,
    date_column: str | None,
    prediction_feature: str,
    emit: Emitter | None,
) -> dict[str, Any]:
    """What every forecaster reports on its test part: metrics beside persistence (and seasonal naive when
    ``season`` is given), the charts (the seasonal-naive line when ``seasonal_chart``), the losses and the
    data facts; metrics and charts are emitted."""
    y_raw, test_start = data.y_raw, data.test_start
    predicted = data.levels(predicted_scaled)
    aligned = data.reference_rows() if season and data.easter_aligned else None
    results = evaluate_forecast(y_raw, predicted, test_start, season, aligned)
    seasonal = seasonal_naive_forecast(y_raw, test_start, season) if seasonal_chart and season else None
    charts = forecast_charts(
        data.frame,
        date_column,
        y_raw,
        predicted,
        persistence_forecast(y_raw, test_start),
        test_start,
        prediction_feature,
        losses,
        seasonal=seasonal,
    )
    if emit is not None:
        emit_metrics(emit, results)  # the model's as rmse ..., the baseline's as persistence_rmse ...
        for chart in charts:
            emit.chart_spec(chart)
        emit.progress(95, "evaluated")
    metrics: Metrics = results["model"]
    return {
        "metrics": metrics,
        "baselines": {name: value for name, value in results.items() if name != "model"},
        "loss": {"train": losses[0], "test": losses[1]},
        "charts": charts,
        "data": {
            "rows_selected": data.selected,
            "rows_removed": data.selected - len(data.full),
            "train_rows": test_start,
            "test_rows": len(data.full) - test_start,
            "train_windows": len(data.y_train),
            "test_windows": len(data.y_test),
            "window": window,
            "inputs": data.inputs.to_dict() if data.inputs is not None else None,
            "kept_epoch": kept_epoch,
            "actual": y_raw[test_start:].tolist(),
            "predicted": predicted.tolist(),
        },
    }


def train_recurrent_forecaster(
    frame: pd.DataFrame,
    *,
    model: str,
    training_features: Sequence[str],
    prediction_feature: str,
    train_share: float,
    epochs: int,
    learning_rate: float,
    hidden_layers: int,
    window: int = DEFAULT_WINDOW,
    batch_size: int = DEFAULT_BATCH_SIZE,
    normalization: Normalization = "[0,1]",
    missing_values: MissingValues = "impute_average",
    from_index: float | None = None,
    to_index: float | None = None,
    seed: int = 0,
    date_column: str | None = "Date",
    torch_threads: int | None = None,
    season_length: int | None = None,
    emit: Emitter | None = None,
) -> tuple[dict[str, Any], FittedForecaster]:
    """Train ``model`` (LSTM, GRU or RNN) and score it on the test part next to the persistence baseline.

    Returns (result, fitted): result holds ``metrics`` (the model's), ``baselines`` (``persistence``),
    ``loss`` (train/test per epoch), ``charts`` (protocol chart shape) and ``data`` (split sizes, actual
    and predicted test values); ``fitted`` is for the artifacts and inference. With ``emit``: progress per
    epoch, ``train_loss``/``test_loss`` metrics with the epoch as step, the final metrics (a baseline's as
    ``persistence_rmse`` ...) and the charts.

    ``season_length``: also score the seasonal-naive baseline (the value ``season_length`` rows earlier)
    when the training part holds at least that many rows; ``data.season_length`` says whether it was used
    (None when not asked for or when the rows are too few).
    """
    import torch

    if model not in RECURRENT_MODELS:
        raise ValueError(f"unknown recurrent model {model!r}; expected one of {', '.join(RECURRENT_MODELS)}")
    check_training_arguments(
        learning_rate, missing_values, epochs=epochs, window=window, batch_size=batch_size
    )
    if emit is not None:
        emit.progress(2, "preprocessing")

    data = prepare_windows(
        frame,
        training_features,
        prediction_feature,
        from_index=from_index,
        to_index=to_index,
        train_share=train_share,
        window=window,
        missing_values=missing_values,
        normalization=normalization,
        seed=seed,
    )
    features = data.features
    imputer, feature_normalizer, target_normalizer = (
        data.imputer,
        data.feature_normalizer,
        data.target_normalizer,
    )

    torch.manual_seed(seed)
    with torch_settings(torch_threads):
        network = build_network(model, data.input_width, hidden_layers)
        start_at_reference(network, data)
        if emit is not None:
            emit.log(
                f"{model}: {len(data.y_train)} training and {len(data.y_test)} test windows of "
                f"{window} rows, "
                f"{data.input_width} input(s) per row, hidden size {hidden_layers}"
            )
            if data.inputs is not None:
                emit.log(data.inputs.describe())
            emit.progress(5, "training")
        (train_loss, test_loss), kept_epoch, predicted_scaled = fit_and_predict(
            network,
            data,
            (learning_rate, epochs, batch_size, seed),
            dtype=torch.float32,
            epoch_label="Epoch",
            emit=emit,
        )

    season = season_length if season_length is not None and data.test_start >= season_length else None
    scored = scored_forecast(
        data,
        predicted_scaled,
        (train_loss, test_loss),
        kept_epoch,
        window=window,
        season=season,
        seasonal_chart=True,
        date_column=date_column,
        prediction_feature=prediction_feature,
        emit=emit,
    )
    scored["data"]["season_length"] = season
    result: dict[str, Any] = {"model": model, "seed": seed, **scored}
    fitted = FittedForecaster(
        model=model,
        network=network,
        training_features=features,
        prediction_feature=prediction_feature,
        window=window,
        hidden_layers=hidden_layers,
        feature_normalizer=feature_normalizer,
        target_normalizer=target_normalizer,
        imputer=imputer,
        target_mode=data.target_mode,
        inputs=data.inputs,
    )
    return result, fitted
