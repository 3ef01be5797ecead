"""Library versions, recorded with every result for reproducibility."""

from __future__ import annotations

import platform
from importlib import metadata

from qmlstudio_worker import __version__

# Distribution name -> key used in the versions object.
TRACKED_DISTRIBUTIONS: dict[str, str] = {
    "qiskit": "qiskit",
    "qiskit-aer": "qiskit_aer",
    "torch": "torch",
    "numpy": "numpy",
}


def installed_versions() -> dict[str, str]:
    """Versions from the installed distributions' metadata (no heavy imports), plus Python's own."""
    versions: dict[str, str] = {}
    for distribution, key in TRACKED_DISTRIBUTIONS.items():
        try:
            versions[key] = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            versions[key] = "not installed"
    versions["python"] = platform.python_version()
    versions["qmlstudio_worker"] = __version__
    return versions
