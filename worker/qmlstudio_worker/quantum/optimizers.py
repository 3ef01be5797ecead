"""The form's optimizers (``optimizerAlgorithm``: COBYLA, SPSA, ADAM) for the variational circuits.

``minimize(objective, x0, method, maxiter, seed)`` runs one of them on ``objective(weights: torch.Tensor)
-> torch scalar`` and returns the best point, its value and the convergence curve:

- **COBYLA**: SciPy's COBYLA (the one Qiskit's ``COBYLA`` wraps), ``maxiter`` objective evaluations,
  ``rhobeg`` 1.0; the curve is the objective at every evaluation (what Qiskit's callbacks record).
- **SPSA**: simultaneous perturbation with Qiskit's default gains (alpha 0.602, gamma 0.101,
  perturbation c 0.2) and its calibration of the learning rate (target first step 2 pi / 10, measured
  over ``CALIBRATION_STEPS`` random directions); ``maxiter`` iterations of two evaluations each; seeded
  directions. The curve is the mean of each iteration's two evaluations.
- **ADAM**: torch's Adam, learning rate ``ADAM_LEARNING_RATE``, ``maxiter`` steps on the exact gradient of
  the simulated circuit (autograd through the statevector, or under a noise model through the noisy
  density-matrix simulation of :mod:`.noisy_density`: no parameter shift, no shots). The curve is the
  objective at every step. A real device gives no such gradient: :data:`ADAM_ON_A_DEVICE` is the refusal.

Every run is deterministic for a given seed.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

OPTIMIZERS: tuple[str, ...] = ("COBYLA", "SPSA", "ADAM")
CALIBRATION_STEPS = 25
ADAM_LEARNING_RATE = 0.05
SPSA_ALPHA, SPSA_GAMMA, SPSA_C = 0.602, 0.101, 0.2
SPSA_TARGET_MAGNITUDE = 2 * math.pi / 10
#: The one wording of the refusal of ADAM on a real IBM device (the models raise it), the same sentence as
#: the server's and the form's (schemas/platform.json messages.adamNeedsSimulation).
ADAM_ON_A_DEVICE = "ADAM needs the exact gradient of a simulation: choose COBYLA or SPSA for a real device."

Objective = Callable[[Any], Any]  # torch.Tensor (weights) -> torch scalar tensor


@dataclass
class OptimizerResult:
    x: np.ndarray[Any, np.dtype[np.float64]]
    value: float
    evaluations: int
    curve: list[float] = field(default_factory=list)
    method: str = "COBYLA"

    def describe(self) -> dict[str, Any]:
        return {"method": self.method, "evaluations": self.evaluations, "final_value": self.value}


def _numeric(objective: Objective) -> Callable[[np.ndarray[Any, Any]], float]:
    import torch

    def value(x: np.ndarray[Any, Any]) -> float:
        with torch.no_grad():
            return float(objective(torch.as_tensor(np.asarray(x, dtype=np.float64))))

    return value


def minimize(
    objective: Objective,
    x0: np.ndarray[Any, Any],
    method: str = "COBYLA",
    maxiter: int = 100,
    seed: int = 0,
    on_step: Callable[[int, float], None] | None = None,
) -> OptimizerResult:
    """Minimize ``objective`` from ``x0`` with ``method``; ``on_step(step, value)`` reports progress."""
    if method not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {method!r}; expected one of {', '.join(OPTIMIZERS)}")
    if isinstance(maxiter, bool) or not isinstance(maxiter, int) or maxiter < 1:
        raise ValueError(f"the optimizer's iterations must be a positive integer, got {maxiter!r}")
    start = np.asarray(x0, dtype=np.float64).copy()
    if method == "COBYLA":
        return _cobyla(objective, start, maxiter, on_step)
    if method == "SPSA":
        return _spsa(objective, start, maxiter, seed, on_step)
    return _adam(objective, start, maxiter, on_step)


class _BudgetSpent(Exception):
    """Raised inside the objective to stop COBYLA after ``maxiter`` evaluations."""


def _cobyla(
    objective: Objective,
    x0: np.ndarray[Any, Any],
    maxiter: int,
    on_step: Callable[[int, float], None] | None,
) -> OptimizerResult:
    from scipy.optimize import minimize as scipy_minimize  # type: ignore[import-untyped]

    value = _numeric(objective)
    curve: list[float] = []
    best: tuple[float, np.ndarray[Any, Any]] = (math.inf, x0)

    def recorded(x: np.ndarray[Any, Any]) -> float:
        nonlocal best
        if len(curve) >= maxiter:
            raise _BudgetSpent
        v = value(x)
        curve.append(v)
        if v < best[0]:
            best = (v, np.array(x, dtype=np.float64))
        if on_step is not None:
            on_step(len(curve), v)
        return v

    # SciPy's COBYLA needs at least len(x0) + 2 evaluations; the form's iteration count is honoured by
    # stopping at it ourselves.
    budget = max(maxiter, x0.size + 2)
    with contextlib.suppress(_BudgetSpent):
        scipy_minimize(recorded, x0, method="COBYLA", options={"maxiter": budget, "rhobeg": 1.0})
    return OptimizerResult(best[1], best[0], len(curve), curve, "COBYLA")


def _spsa(
    objective: Objective,
    x0: np.ndarray[Any, Any],
    maxiter: int,
    seed: int,
    on_step: Callable[[int, float], None] | None,
) -> OptimizerResult:
    value = _numeric(objective)
    rng = np.random.default_rng(seed)
    x = x0.copy()
    evaluations = 0

    def direction() -> np.ndarray[Any, Any]:
        return rng.choice([-1.0, 1.0], size=x.size)

    # Calibration (as Qiskit's SPSA.calibrate): the mean gradient magnitude sets the learning rate.
    magnitudes = []
    for _ in range(CALIBRATION_STEPS):
        delta = direction()
        magnitudes.append(abs(value(x + SPSA_C * delta) - value(x - SPSA_C * delta)) / (2 * SPSA_C))
        evaluations += 2
    mean_magnitude = float(np.mean(magnitudes)) or 1e-12
    a = SPSA_TARGET_MAGNITUDE / mean_magnitude
    curve: list[float] = []
    best: tuple[float, np.ndarray[Any, Any]] = (math.inf, x.copy())
    for k in range(maxiter):
        a_k = a / (k + 1) ** SPSA_ALPHA
        c_k = SPSA_C / (k + 1) ** SPSA_GAMMA
        delta = direction()
        plus, minus = value(x + c_k * delta), value(x - c_k * delta)
        evaluations += 2
        x = x - a_k * (plus - minus) / (2 * c_k) * delta
        estimate = (plus + minus) / 2
        curve.append(estimate)
        if estimate < best[0]:
            best = (estimate, x.copy())
        if on_step is not None:
            on_step(k + 1, estimate)
    final = value(x)
    evaluations += 1
    if final <= best[0]:
        best = (final, x.copy())
    return OptimizerResult(best[1], best[0], evaluations, curve, "SPSA")


def _adam(
    objective: Objective,
    x0: np.ndarray[Any, Any],
    maxiter: int,
    on_step: Callable[[int, float], None] | None,
) -> OptimizerResult:
    import torch

    weights = torch.nn.Parameter(torch.as_tensor(x0, dtype=torch.float64).clone())
    optimizer = torch.optim.Adam([weights], lr=ADAM_LEARNING_RATE)
    curve: list[float] = []
    best: tuple[float, np.ndarray[Any, Any]] = (math.inf, x0.copy())
    for step in range(1, maxiter + 1):
        optimizer.zero_grad()
        loss = objective(weights)
        current = float(loss.detach())
        if current < best[0]:
            best = (current, weights.detach().numpy().copy())
        loss.backward()
        optimizer.step()
        curve.append(current)
        if on_step is not None:
            on_step(step, current)
    return OptimizerResult(best[1], best[0], maxiter, curve, "ADAM")
