"""Vehicle routing: the QUBO is qiskit-optimization's VehicleRouting formulation (its minimum is the exact
optimum's routes), QAOA and VQE reach the exact optimum on a depot and 3 stops, larger instances are refused
naming the qubit limit, and the handler runs Classical (with the capacity) and QAOA end to end (noise and
devices: test_vehicle_routing_noise.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import REPO_ROOT
from test_handlers_financial import refusal, result_of, run

from qmlstudio_worker.problems.vehicle_routing import routing as vr

Lines = list[dict[str, Any]]
COORDINATES = [[52.52, 13.405], [52.53, 13.42], [52.51, 13.38], [52.50, 13.43], [52.54, 13.39]]


def _instance(stops: int = 4, demand: list[float] | None = None, capacity: float = 100) -> vr.RoutingInstance:
    return vr.RoutingInstance(
        names=[f"s{i}" for i in range(stops)],
        coordinates=np.asarray(COORDINATES[:stops]),
        demand=np.asarray(demand if demand is not None else [0, 30, 40, 20, 50][:stops], dtype=np.float64),
        depot=0,
        vehicles=2,
        capacity=capacity,
    )


def test_qubo_minimum_is_the_exact_optimum_and_qubits_match_qiskit_counts() -> None:
    instance = _instance()
    qubo, energy = vr.build_qubo(instance)
    assert qubo.qubits == vr.qubit_count(4) == 14  # 12 edges + a 2-bit slack for the 3-stop clique
    assert vr.qubit_count(3) == 6
    best = int(np.argmin(energy))
    bits = vr.basis_bits(qubo.qubits)[best, : len(qubo.edges)]
    routes = vr.routes_from_edges(instance, {qubo.edges[k] for k in np.flatnonzero(bits)})
    exact = vr.solve_exact(instance, with_capacity=False)
    assert exact is not None
    assert routes is not None
    assert sum(instance.route_length(r) for r in routes) == pytest.approx(exact[1])
    assert energy[best] * qubo.scale == pytest.approx(exact[1])  # no penalty left at the optimum


def test_capacity_changes_the_exact_routes() -> None:
    free = vr.solve_exact(_instance(), with_capacity=False)
    tight = vr.solve_exact(_instance(demand=[0, 60, 60, 60], capacity=120), with_capacity=True)
    assert free is not None
    assert tight is not None
    assert free[0] == [(1,), (2, 3)]
    assert tight[1] >= free[1]
    assert vr.solve_exact(_instance(demand=[0, 90, 90, 90], capacity=100), with_capacity=True) is None


@pytest.mark.parametrize("kind", ["QAOA", "VQE"])
def test_quantum_reaches_the_exact_optimum(kind: str) -> None:
    solved = vr.solve_quantum(_instance(), kind, maxiter=100, reps=2, seed=42)
    assert solved["found_optimum"]
    assert solved["total_distance_km"] == pytest.approx(solved["exact_distance_km"])
    assert 0 < solved["optimum_probability"] <= solved["feasible_probability"] <= 1
    assert solved["qubits"] == 14
    assert [c["type"] for c in solved["charts"]] == ["line", "line", "line"]
    again = vr.solve_quantum(_instance(), kind, maxiter=100, reps=2, seed=42)
    assert again["convergence"] == solved["convergence"]


def test_larger_instances_are_refused_naming_the_limit() -> None:
    with pytest.raises(ValueError, match=r"5 stops \(depot included\) need 30 qubits.*at most 16"):
        vr.build_qubo(_instance(stops=5))


@pytest.fixture
def stops_csv(tmp_path: Path) -> Path:
    frame = pd.DataFrame(
        {
            "id": [1, 2, 3, 4],
            "latitude": [c[0] for c in COORDINATES[:4]],
            "longitude": [c[1] for c in COORDINATES[:4]],
            "demand": [0, 30, 40, 20],
        }
    )
    path = tmp_path / "stops.csv"
    frame.to_csv(path, index=False)
    return path


def _body(name: str, **changes: Any) -> dict[str, Any]:
    path = REPO_ROOT / "src" / "generated" / "fixtures" / "vehicle-routing.job-requests.json"
    requests = json.loads(path.read_text(encoding="utf-8"))["requests"]
    (request,) = [r for r in requests if r["name"] == name]
    return {**request["body"], **changes}


def test_handler_quantum_and_classical(stops_csv: Path, parse_protocol_lines: Callable[[str], Lines]) -> None:
    code, lines = run(
        "vehicle-routing",
        _body("example with model_type Quantum", optimizer_alg_maxiter=40, circuit_repetition=1),
        stops_csv,
        None,
        parse_protocol_lines,
    )
    data = result_of(code, lines)
    assert (data["model"], data["model_type"]) == ("QAOA", "Quantum")
    assert data["baseline"]["name"].startswith("exact optimum")
    assert data["metrics"]["total_distance_km"] >= data["baseline"]["metrics"]["total_distance_km"] - 1e-9
    assert {s for r in data["selection"]["routes"] for s in r["stops"]} == {"stop 2", "stop 3", "stop 4"}
    charts = [line["chart"]["title"] for line in lines if line["type"] == "chart"]
    assert any("convergence" in t for t in charts)
    assert any(t.startswith("QAOA routes") for t in charts)

    code, lines = run(
        "vehicle-routing", _body("example with model_type Classical"), stops_csv, None, parse_protocol_lines
    )
    data = result_of(code, lines)
    assert data["model"] == "Classical"
    assert data["metrics"]["vehicles_used"] == 2


def test_handler_refuses_what_it_cannot_run(
    stops_csv: Path, tmp_path: Path, parse_protocol_lines: Callable[[str], Lines]
) -> None:
    code, lines = run(
        "vehicle-routing",
        _body("example with model_type Classical", vehicle_capacity=10),
        stops_csv,
        None,
        parse_protocol_lines,
    )
    assert refusal(code, lines)["field"] == "/vehicle_capacity"
    big = pd.read_csv(stops_csv)
    big = pd.concat([big, big.tail(1).assign(id=5, latitude=52.54)])
    path = tmp_path / "five.csv"
    big.to_csv(path, index=False)
    code, lines = run(
        "vehicle-routing", _body("example with model_type Quantum"), path, None, parse_protocol_lines
    )
    line = refusal(code, lines)
    assert "at most 16" in line["message"]
