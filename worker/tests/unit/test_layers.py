"""The worker's layers, read from every module's imports (function-local ones included):

- ``ml`` (preprocessing, windows, metrics, classical models, artifacts) imports neither ``quantum``, ``jobs``
  nor ``problems``;
- ``quantum`` (circuits, simulators, noise, optimizers, the variational loop, quantum models) imports
  neither ``jobs`` nor ``problems``;
- ``jobs`` (the runner, support, the resource estimate, repeats) imports no ``problems``: it reaches a
  problem's handler by name (its problem file's ``job.worker``), and what a generic step needs of a problem
  the handler declares (e.g. ``ESTIMATE_MODELS``);
- the core modules at the package's top (protocol, errors, problem_schemas, ...) import no ``problems``;
- a problem's package imports no other problem's.

Each rule is proven by an offending snippet."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import WORKER_DIR

PACKAGE = "qmlstudio_worker"
ROOT = WORKER_DIR / PACKAGE
# layer -> the layers it may not import
FORBIDDEN = {
    "ml": ("quantum", "jobs", "problems"),
    "quantum": ("jobs", "problems"),
    "jobs": ("problems",),
    "core": ("problems",),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(WORKER_DIR).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 2 and parts[1] in ("ml", "quantum", "jobs", "problems"):
        return parts[1]
    return "core" if parts[0] == PACKAGE and len(parts) == 2 and parts[1] not in ("cli", "serve") else "entry"


def imported(module: str, source: str) -> set[str]:
    """Every module of the package ``source`` imports (``from x import y`` counts x.y when it is a module)."""
    found: set[str] = set()
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], base]
                ).strip(".")
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith(f"{PACKAGE}.")}


def violations(module: str, source: str) -> list[str]:
    own = layer(module)
    problems = []
    for target in sorted(imported(module, source)):
        if layer(target) in FORBIDDEN.get(own, ()):
            problems.append(f"{module} ({own}) imports {target} ({layer(target)})")
        parts, target_parts = module.split("."), target.split(".")
        if own == "problems" == layer(target) and len(target_parts) > 2 and parts[2] != target_parts[2]:
            problems.append(f"{module} imports another problem's module {target}")
    return problems


@pytest.mark.parametrize(
    ("module", "snippet"),
    [
        ("qmlstudio_worker.ml.windows", "from qmlstudio_worker.quantum.devices import DeviceTarget\n"),
        ("qmlstudio_worker.ml.windows", "def f():\n    from qmlstudio_worker.jobs import support\n"),
        ("qmlstudio_worker.ml.windows", "import qmlstudio_worker.problems.fraud_detection.handler\n"),
        (
            "qmlstudio_worker.quantum.circuits",
            "from qmlstudio_worker.problems.vehicle_routing import routing\n",
        ),
        ("qmlstudio_worker.quantum.circuits", "from qmlstudio_worker.jobs.support import quantum_shots\n"),
        ("qmlstudio_worker.problem_schemas", "from qmlstudio_worker.problems import brain_tumor\n"),
        (
            "qmlstudio_worker.jobs.resource_estimate",
            "def f():\n    from qmlstudio_worker.problems.brain_tumor.qsvm import MAX_KERNEL_ROWS\n",
        ),
        (
            "qmlstudio_worker.problems.vehicle_routing.routing",
            "from ..portfolio_optimization import quantum_solver\n",
        ),
    ],
)
def test_each_rule_catches_an_offending_import(module: str, snippet: str) -> None:
    assert violations(module, snippet) != []


def test_allowed_directions_pass() -> None:
    assert (
        violations("qmlstudio_worker.quantum.hybrid", "from qmlstudio_worker.ml.recurrent import x\n") == []
    )
    assert violations("qmlstudio_worker.jobs.support", "from qmlstudio_worker.quantum import devices\n") == []
    routing = "qmlstudio_worker.problems.vehicle_routing.handler"
    assert violations(routing, "from qmlstudio_worker.problems.vehicle_routing.routing import x\n") == []


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_package_keeps_its_layers(path: Path) -> None:
    assert violations(module_name(path), path.read_text(encoding="utf-8")) == []
