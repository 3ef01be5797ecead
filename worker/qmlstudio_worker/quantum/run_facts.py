"""Where a quantum model's circuits ran, as one typed entry of the job result (``quantum_run``).

The solvers and trainers describe their run in their own details (``simulation``, ``noise_model``,
``device``, ``backend_run``, ``noisy_training``, ``circuit``); the result carries the same facts under one
key, typed by ``schemas/results/job-result.schema.json#/definitions/quantumRun``, so the server reads them
without searching the problem-specific parts of the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# What ran on the noisy simulator or device once training ended, for the output's 'Quantum Backend' line.
TEST_PREDICTIONS = "test predictions"
FINAL_CIRCUIT = "the final circuit measured"

_REQUIRED = ("simulation", "noise_model", "device", "backend_run", "noisy_training")
_OPTIONAL = ("shots", "circuit", "saved_model_predicts")


def quantum_run(details: Mapping[str, Any], measured_after_training: str) -> dict[str, Any]:
    """The result's ``quantum_run`` from a solver's or trainer's details (absent facts are null)."""
    facts: dict[str, Any] = {key: details.get(key) for key in _REQUIRED}
    facts.update({key: details[key] for key in _OPTIONAL if details.get(key) is not None})
    facts["measured_after_training"] = measured_after_training
    return facts
