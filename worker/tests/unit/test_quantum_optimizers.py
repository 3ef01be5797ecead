"""The form's optimizers honour the iteration count, are deterministic and minimize a simple bowl."""

from __future__ import annotations

import numpy as np
import pytest

from qmlstudio_worker.quantum.optimizers import CALIBRATION_STEPS, OPTIMIZERS, minimize


def _bowl(weights):  # type: ignore[no-untyped-def]
    return ((weights - 0.5) ** 2).sum()


@pytest.mark.parametrize("method", OPTIMIZERS)
def test_iteration_count_is_honoured_and_runs_repeat(method: str) -> None:
    first = minimize(_bowl, np.zeros(12), method, 5, seed=1)
    again = minimize(_bowl, np.zeros(12), method, 5, seed=1)
    assert len(first.curve) == 5  # COBYLA too, below SciPy's minimum of len(x0) + 2 evaluations
    assert first.curve == again.curve
    assert np.array_equal(first.x, again.x)
    if method == "SPSA":
        assert first.evaluations == 2 * CALIBRATION_STEPS + 2 * 5 + 1


@pytest.mark.parametrize("method", OPTIMIZERS)
def test_minimizes_a_bowl(method: str) -> None:
    result = minimize(_bowl, np.zeros(3), method, 200, seed=0)
    assert result.value < 0.05 * 0.75  # from 0.75 at the start
    assert result.value <= min(result.curve) + 1e-12  # the best point found is returned


def test_refuses_unknown_method_and_bad_iterations() -> None:
    with pytest.raises(ValueError, match="unknown optimizer"):
        minimize(_bowl, np.zeros(2), "BFGS", 10)
    with pytest.raises(ValueError, match="positive integer"):
        minimize(_bowl, np.zeros(2), "COBYLA", 0)


def test_the_adam_device_refusal_is_the_forms_sentence() -> None:
    """The worker refuses ADAM on a real device with the sentence the form and the server show."""
    import json

    from conftest import REPO_ROOT

    from qmlstudio_worker.quantum.optimizers import ADAM_ON_A_DEVICE

    messages = json.loads((REPO_ROOT / "schemas" / "platform.json").read_text(encoding="utf-8"))["messages"]
    assert messages["adamNeedsSimulation"] == ADAM_ON_A_DEVICE
