"""pyproject.toml pins exactly the versions of requirements.lock, and the lock pins everything."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata

from conftest import WORKER_DIR
from packaging.requirements import Requirement

PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s;]+)$")


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for raw in (WORKER_DIR / "requirements.lock").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = PIN.match(line)
        assert match, f"requirements.lock line is not an exact pin: {line!r}"
        pins[normalise(match.group(1))] = match.group(2)
    return pins


def test_pyproject_pins_agree_with_the_lock() -> None:
    project = tomllib.loads((WORKER_DIR / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["dev"]
    pins = lock_pins()
    for requirement in requirements:
        # Extras (moto[s3]) are allowed; the version must still be one exact == pin.
        parsed = Requirement(requirement)
        specs = list(parsed.specifier)
        message = f"pyproject.toml dependency is not an exact pin: {requirement!r}"
        assert len(specs) == 1, message
        assert specs[0].operator == "==", message
        assert parsed.marker is None, f"pyproject.toml dependency carries a marker: {requirement!r}"
        name, version = normalise(parsed.name), specs[0].version
        assert name in pins, f"{name} is missing from requirements.lock"
        # The lock may carry a local label (torch 2.13.0+cpu) that the public pin leaves out.
        assert pins[name].split("+")[0] == version, f"{name}: pyproject {version}, lock {pins[name]}"


def test_torch_is_the_cpu_build() -> None:
    assert lock_pins()["torch"] == "2.13.0+cpu"
    assert metadata.version("torch") == "2.13.0+cpu"
