"""The record every output keeps for reproducibility, and seeding the random generators from a job's seed.

``build_run_record`` returns a plain, JSON-ready dict: the config (the job body, copied, its IBM token
nulled), the dataset's sha256 (and its rows and columns when the loader's facts are given), the seed, the
library versions (``qmlstudio_worker.versions`` plus pandas, scikit-learn and qiskit-machine-learning) and
the machine (platform, Python, CPU count). Only ``recorded_at`` changes between two runs of the same body
and seed on the same machine. ``seed_everything`` seeds ``random``, NumPy's global generator and, when
wanted, PyTorch (imported only then, so scikit-learn jobs do not pay for importing it).
"""

from __future__ import annotations

import json
import os
import platform
import random
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

import numpy as np

from qmlstudio_worker.ml.datasets import DatasetFacts
from qmlstudio_worker.versions import installed_versions

#: The seed of a job whose body names none.
DEFAULT_SEED = 0
#: NumPy's legacy global generator takes seeds in [0, 2**32).
MAX_SEED = 2**32 - 1

# Libraries the models use, on top of those ``versions.installed_versions`` tracks (an exported run checks
# them all before it trains again).
_EXTRA_DISTRIBUTIONS: dict[str, str] = {
    "pandas": "pandas",
    "scikit-learn": "scikit_learn",
    "qiskit-machine-learning": "qiskit_machine_learning",
}


def resolve_seed(params: Mapping[str, Any], default: int = DEFAULT_SEED) -> int:
    """The job's seed: ``params["seed"]`` when present, else ``default``; refuses a seed out of range."""
    seed = params.get("seed", default)
    return check_seed(seed)


def check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"The seed must be a whole number, not {seed!r}.")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"The seed must be between 0 and {MAX_SEED}, not {seed}.")
    return seed


def seed_everything(seed: int, *, torch: bool | None = None) -> None:
    """Seed ``random``, NumPy's global generator and PyTorch from ``seed``.

    ``torch``: True imports and seeds PyTorch; False leaves it alone; None (the default) seeds it only
    when some code has already imported it, so a job that never uses PyTorch never loads it.
    """
    seed = check_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    if torch is False or (torch is None and "torch" not in sys.modules):
        return
    import torch as torch_module

    torch_module.manual_seed(seed)


def library_versions() -> dict[str, str]:
    versions = installed_versions()
    for distribution, key in _EXTRA_DISTRIBUTIONS.items():
        try:
            versions[key] = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            versions[key] = "not installed"
    return dict(sorted(versions.items()))


def machine_info() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "system": platform.system(),
        "architecture": platform.machine(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "cpu_count": os.cpu_count(),
    }


#: Body keys that hold a user's IBM Quantum token: the record is written to the output's directory and
#: returned to readers, so it keeps none of them (the worker reads the token from the envelope only).
TOKEN_KEYS = frozenset({"actual_quantum_device_token", "custom_ibm_token", "ibm_token"})


def _without_tokens(value: Any) -> Any:
    """``value`` with every token key's non-empty string replaced by None, at any depth."""
    if isinstance(value, dict):
        return {
            key: None if key in TOKEN_KEYS and item else _without_tokens(item) for key, item in value.items()
        }
    if isinstance(value, list):
        return [_without_tokens(item) for item in value]
    return value


def _plain(config: Mapping[str, Any]) -> dict[str, Any]:
    """A deep, JSON-ready copy of the job body without its IBM token (later changes to the body do not
    reach the record)."""
    copied = json.loads(json.dumps(config, allow_nan=False))
    if not isinstance(copied, dict):
        raise TypeError("The config must be a JSON object.")
    plain: dict[str, Any] = _without_tokens(copied)
    return plain


def build_run_record(
    config: Mapping[str, Any],
    *,
    seed: int,
    dataset: DatasetFacts | str | None = None,
    recorded_at: datetime | None = None,
) -> dict[str, Any]:
    """The reproducibility record of one output, as a plain dict.

    ``dataset`` is the loader's facts, or just the sha256 of the bytes, or None for a job without one.
    """
    if isinstance(dataset, DatasetFacts):
        dataset_sha256: str | None = dataset.sha256
        dataset_facts: dict[str, Any] | None = {"rows": dataset.rows, "columns": list(dataset.columns)}
    else:
        dataset_sha256, dataset_facts = dataset, None
    when = (recorded_at or datetime.now(UTC)).astimezone(UTC)
    record: dict[str, Any] = {
        "config": _plain(config),
        "dataset_sha256": dataset_sha256,
        "seed": check_seed(seed),
        "versions": library_versions(),
        "machine": machine_info(),
        "recorded_at": when.isoformat().replace("+00:00", "Z"),
    }
    if dataset_facts is not None:
        record["dataset"] = dataset_facts
    return record
