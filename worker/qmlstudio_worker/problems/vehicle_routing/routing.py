"""Vehicle routing: qiskit-optimization's ``VehicleRouting`` QUBO solved by QAOA or SamplingVQE on the exact
statevector simulator, next to the exact (enumerated) optimum.

The formulation is ``qiskit_optimization.applications.VehicleRouting.to_quadratic_program`` (n stops, the
depot among them, K vehicles): one binary x_ij per ordered pair i != j (edge i -> j used; qubit order i
major, j minor, as Qiskit builds them), minimize sum d_ij x_ij subject to one edge out of and one into
every stop but the depot, K edges out of and K into the depot, and for every subset C of 2 or more
non-depot stops sum_{i,j in C} x_ij <= |C| - 1 (no sub-route without the depot). Qiskit's
``QuadraticProgramToQubo`` turns it into a QUBO: the 2-stop inequalities x_ij + x_ji <= 1 become the
penalty P x_ij x_ji (``LinearInequalityToPenalty``); the larger ones get an integer slack in
[0, |C| - 1], binary-encoded (``IntegerToBinary``: 1, 2, 4, ..., the last weight cut to the bound), and
every equality becomes P (lhs - rhs)^2 with P = 1 + the sum of the distances (its default penalty). The
energies are divided by that sum so the optimizer and QAOA's angles see a scale of 1.

The formulation has no loads: the capacity is checked on the routes found and reported. Distances are
great-circle kilometres between the (latitude, longitude) pairs. The whole QUBO is tabulated over the
2**q basis states, so q is limited to ``MAX_QUBITS`` (3 stops and a depot need 14): larger instances are
refused, naming the limit. The exact optimum enumerates every split of the stops into K ordered routes
(for the classical model, with the capacity).

Under a noise model (or a device in local testing mode, which is the same Aer simulation behind the device's
snapshot) every evaluation and the final measurement run the Qiskit circuit through
:func:`.backends.prepare_runner`: transpiled for the device, sampled (1024 shots unless the body says), the
energy the mean of the measured bitstrings' QUBO energies, as on the exact path. QAOA's circuit is built from
the QUBO's own Z and ZZ terms (:func:`ising_operator`), so it is the circuit the torch simulation computes.
The noisy simulation picks its method by size (:func:`.backends.simulation_method`): the 6-qubit instance (a
depot and 2 stops) runs on Aer's density matrix, the shipped sample (a depot and 3 stops, 14 qubits, 15
active after routing on the heavy-hex device: a 17 GB density matrix) on statevector trajectories, the mean
of 64 noise realisations per evaluation in 16 * 2**15 bytes. Measured on this 2-core machine (fake_kyiv,
shared with other jobs, so the numbers range with their load): 6 to 21 s per QAOA evaluation (reps 2, 514
ECR gates) and 5 to 6 s per VQE evaluation (RealAmplitudes reps 2); 10 COBYLA iterations of QAOA took 66 s
(estimate 69 s) to 252 s, 10 of VQE 80 s, so the form's 100 iterations take about 10 to 40 min (QAOA) and
10 min (VQE) (``NOISY_SECONDS_AT_SAMPLE`` is a busy machine's 14 s). Under fake_kyiv the
final distribution is close to uniform (optimum probability about 0.001 after 10 QAOA iterations): the best
feasible bitstring among the 1,024 shots is still reported next to the exact optimum.
Every instance the QUBO takes (``MAX_QUBITS``) runs under noise
(``MAX_NOISY_QUBITS``); :func:`noisy_refusal` keeps the limit and its measured estimate for a larger one.
A real device takes every size up to ``MAX_QUBITS``.

ADAM under a noise model follows the autograd gradient of the exact noisy channel: the same transpiled
circuit and noise in the torch density-matrix simulation of :mod:`.noisy_density` (the energy curve is that
channel's, the infinite-shot expectation; the final circuit is measured as above). That simulation keeps
every active qubit's density matrix; one row per ADAM step allows 10 active qubits
(``noisy_density.NOISY_TRAINING_LIMITS["one_row"]``, about 6 s per step there), so it takes the 6-qubit
instance and refuses the next, the 14-qubit sample (14 to 15 active qubits after transpiling: one density
matrix alone is 4.3 GB), with its measured cost; ADAM on a real device is refused
(``optimizers.ADAM_ON_A_DEVICE``).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum.devices import DeviceTarget
from qmlstudio_worker.quantum.optimizers import ADAM_ON_A_DEVICE
from qmlstudio_worker.quantum.variational import (
    MAX_QUBITS,
    VariationalRun,
    VariationalSetup,
    basis_bits,
    convergence_chart,
    optimise_and_read_out,
)

#: Qubits a noisy simulation takes here: every size the QUBO takes (statevector trajectories above 10).
MAX_NOISY_QUBITS = MAX_QUBITS
#: Seconds of one noisy QAOA evaluation (reps 2, fake_kyiv, 64 trajectories) of the 14-qubit sample on this
#: machine, measured with other jobs sharing its 2 cores; a larger instance scales it by 2**(q - 14), a lower
#: bound (its circuit is deeper too).
NOISY_SECONDS_AT_SAMPLE = 14.0
SAMPLE_QUBITS = 14
MAX_EXACT_STOPS = 9  # stops besides the depot the enumeration takes (9! orders x splits: seconds)
EARTH_RADIUS_KM = 6371.0
FloatArray = np.ndarray[Any, np.dtype[np.float64]]
Route = tuple[int, ...]


@dataclass(frozen=True)
class RoutingInstance:
    """Stops (index 0..n-1 in dataset order), the depot's index, vehicles, capacity, loads, distances."""

    names: list[str]
    coordinates: FloatArray  # (n, 2): latitude, longitude
    demand: FloatArray
    depot: int
    vehicles: int
    capacity: float

    @property
    def size(self) -> int:
        return len(self.names)

    @property
    def distances(self) -> FloatArray:
        lat, lon = np.radians(self.coordinates[:, 0]), np.radians(self.coordinates[:, 1])
        dlat, dlon = lat[:, None] - lat[None, :], lon[:, None] - lon[None, :]
        h = np.sin(dlat / 2) ** 2 + np.cos(lat[:, None]) * np.cos(lat[None, :]) * np.sin(dlon / 2) ** 2
        return np.asarray(2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(h, 0, 1))), dtype=np.float64)

    @property
    def customers(self) -> list[int]:
        return [i for i in range(self.size) if i != self.depot]

    def validate(self) -> None:
        if self.size < 2:
            raise ValueError("vehicle routing needs the depot and at least one stop")
        if not 0 <= self.depot < self.size:
            raise ValueError(f"depot row {self.depot + 1} is outside the {self.size} rows")
        if self.vehicles > len(self.customers):
            raise ValueError(
                f"{self.vehicles} vehicles need at least {self.vehicles} stops besides the depot, "
                f"the data has {len(self.customers)}"
            )

    def route_length(self, route: Route) -> float:
        d = self.distances
        path = [self.depot, *route, self.depot]
        return float(sum(d[a, b] for a, b in itertools.pairwise(path)))

    def route_load(self, route: Route) -> float:
        return float(sum(self.demand[i] for i in route))


@dataclass(frozen=True)
class Qubo:
    """The tabulated QUBO: variable names, the edge of each x variable, energies of every basis state."""

    edges: list[tuple[int, int]]
    slack_bits: int
    penalty: float
    scale: float

    @property
    def qubits(self) -> int:
        return len(self.edges) + self.slack_bits


def edge_variables(n: int) -> list[tuple[int, int]]:
    """(i, j) for every ordered pair i != j, in Qiskit's variable order."""
    return [(i, j) for i in range(n) for j in range(n) if i != j]


def _slack_weights(bound: int) -> list[int]:
    """IntegerToBinary's encoding of an integer in [0, bound]: 1, 2, 4, ..., the last one cut to the bound."""
    weights: list[int] = []
    while sum(weights) < bound:
        weights.append(min(2 ** len(weights), bound - sum(weights)))
    return weights


def qubit_count(n: int) -> int:
    """Qubits of the QUBO for n stops (depot included): n (n - 1) edges plus the slack bits."""
    slack = sum(
        len(_slack_weights(size - 1)) * math.comb(n - 1, size) for size in range(3, n)
    )  # subsets of 3+ non-depot stops; pairs need no slack
    return n * (n - 1) + slack


def evaluations_of(optimizer: str, maxiter: int) -> int:
    """Circuit evaluations of a run (:func:`.optimizers.minimize`): one per COBYLA iteration; SPSA's
    calibration, two per step and the final point."""
    from qmlstudio_worker.quantum.optimizers import CALIBRATION_STEPS

    return 2 * CALIBRATION_STEPS + 2 * maxiter + 1 if optimizer == "SPSA" else maxiter


def noisy_refusal(
    qubits: int, noise_model: str | None, device: DeviceTarget | None, evaluations: int
) -> str | None:
    """Why simulating ``qubits`` qubits under the noise model (or a device in local testing mode, the same
    Aer simulation) is refused, with its memory and time in words; None when it runs or nothing is simulated
    with noise (the ideal simulator, a real device)."""
    local = device is not None and device.local_backend is not None
    where = noise_model or (f"{device.name} (local testing mode)" if device is not None and local else None)
    if where is None or qubits <= MAX_NOISY_QUBITS:
        return None
    megabytes = 16 * 2**qubits / 1e6
    seconds = NOISY_SECONDS_AT_SAMPLE * 2 ** (qubits - SAMPLE_QUBITS)
    hours = seconds * evaluations / 3600
    return (
        f"This routing instance needs {qubits} qubits; simulating them under {where} takes statevector "
        f"trajectories of {megabytes:,.0f} MB and at least {seconds:,.0f} s per evaluation here, about "
        f"{hours:,.1f} h for {evaluations} evaluations. The noisy simulator takes at most "
        f"{MAX_NOISY_QUBITS} qubits: choose None as the noise model, a real device, or a dataset with at "
        "most 4 rows"
    )


def ising_operator(energy: FloatArray, n: int) -> Any:
    """The Z and ZZ terms of the tabulated QUBO energy as a Qiskit ``SparsePauliOp`` (its constant left out:
    a global phase): the Walsh-Hadamard transform of ``energy`` gives the coefficient of every Z product."""
    from qiskit.quantum_info import SparsePauliOp

    coefficients = np.asarray(energy, dtype=np.float64).copy()
    for q in range(n):  # butterfly on bit q: (a, b) -> (a + b, a - b); index bit q = qubit q
        view = coefficients.reshape(-1, 2, 2**q)
        view[:, 0, :], view[:, 1, :] = view[:, 0, :] + view[:, 1, :], view[:, 0, :] - view[:, 1, :]
    coefficients /= 2**n
    terms = [
        ("Z" * bin(mask).count("1"), [q for q in range(n) if mask >> q & 1], float(coefficients[mask]))
        for mask in range(1, 2**n)
        if abs(coefficients[mask]) > 1e-12
    ]
    if any(len(t[1]) > 2 for t in terms):
        raise ValueError("the QUBO has terms of more than two variables")
    return SparsePauliOp.from_sparse_list(terms, n)


def build_qubo(instance: RoutingInstance) -> tuple[Qubo, FloatArray]:
    """The QUBO and its scaled energy for every basis state (qubit k = bit k of the index)."""
    n, depot = instance.size, instance.depot
    edges = edge_variables(n)
    index = {e: k for k, e in enumerate(edges)}
    q_count = qubit_count(n)
    if q_count > MAX_QUBITS:
        raise ValueError(
            f"{n} stops (depot included) need {q_count} qubits in the VehicleRouting QUBO; the simulator "
            f"takes at most {MAX_QUBITS} (3 stops and the depot). Use the Classical model for this instance"
        )
    d = instance.distances
    scale = float(sum(d[i, j] for i, j in edges)) or 1.0
    penalty = 1.0 + scale
    bits = basis_bits(q_count).astype(np.float64)
    x = bits[:, : len(edges)]
    energy = x @ np.asarray([d[i, j] for i, j in edges])
    customers = instance.customers
    for i in customers:
        energy += penalty * (x[:, [index[(i, j)] for j in range(n) if j != i]].sum(axis=1) - 1) ** 2
        energy += penalty * (x[:, [index[(j, i)] for j in range(n) if j != i]].sum(axis=1) - 1) ** 2
    k = instance.vehicles
    energy += penalty * (x[:, [index[(depot, j)] for j in customers]].sum(axis=1) - k) ** 2
    energy += penalty * (x[:, [index[(j, depot)] for j in customers]].sum(axis=1) - k) ** 2
    next_slack = len(edges)
    for size in range(2, len(customers) + 1):
        for clique in itertools.combinations(customers, size):
            lhs = x[:, [index[(i, j)] for i in clique for j in clique if i != j]].sum(axis=1)
            if size == 2:
                a, b = clique
                energy += penalty * x[:, index[(a, b)]] * x[:, index[(b, a)]]
                continue
            weights = _slack_weights(size - 1)
            slack = bits[:, next_slack : next_slack + len(weights)] @ np.asarray(weights, dtype=np.float64)
            next_slack += len(weights)
            energy += penalty * (lhs + slack - (size - 1)) ** 2
    qubo = Qubo(edges=edges, slack_bits=q_count - len(edges), penalty=penalty, scale=scale)
    return qubo, np.asarray(energy / scale, dtype=np.float64)


def qaoa_circuit_for(stops: int, reps: int) -> Any:
    """The QAOA circuit a run on ``stops`` rows (depot included) builds, for the resource estimate: the
    QUBO's Z/ZZ pattern depends on the count of stops only (distances and vehicles change coefficients),
    so stops on a small circle stand in for the dataset's."""
    from qiskit.circuit.library import qaoa_ansatz

    angles = 2 * np.pi * np.arange(stops) / stops
    instance = RoutingInstance(
        names=[f"stop {i + 1}" for i in range(stops)],
        coordinates=np.stack([52 + 0.01 * np.cos(angles), 13 + 0.01 * np.sin(angles)], axis=1),
        demand=np.zeros(stops),
        depot=0,
        vehicles=1,
        capacity=0.0,
    )
    qubo, energy = build_qubo(instance)
    return qaoa_ansatz(ising_operator(energy, qubo.qubits), reps=reps)


def routes_from_edges(instance: RoutingInstance, used: set[tuple[int, int]]) -> list[Route] | None:
    """The vehicles' routes when the used edges satisfy the formulation's constraints, else None."""
    n, depot = instance.size, instance.depot
    out_degree = [sum(1 for e in used if e[0] == i) for i in range(n)]
    in_degree = [sum(1 for e in used if e[1] == i) for i in range(n)]
    for i in instance.customers:
        if out_degree[i] != 1 or in_degree[i] != 1:
            return None
    if out_degree[depot] != instance.vehicles or in_degree[depot] != instance.vehicles:
        return None
    successor = {a: b for a, b in used if a != depot}
    routes: list[Route] = []
    visited: set[int] = set()
    for start in sorted(b for a, b in used if a == depot):
        route, stop = [], start
        while stop != depot and stop not in visited:
            visited.add(stop)
            route.append(stop)
            stop = successor[stop]
        if stop != depot:
            return None
        routes.append(tuple(route))
    return routes if visited == set(instance.customers) else None


def solve_exact(instance: RoutingInstance, with_capacity: bool) -> tuple[list[Route], float] | None:
    """The shortest set of K routes from the depot covering every stop once (each route's load within
    the capacity when ``with_capacity``); None when no split fits."""
    customers = instance.customers
    if len(customers) > MAX_EXACT_STOPS:
        raise ValueError(
            f"the exact solver enumerates at most {MAX_EXACT_STOPS} stops besides the depot, "
            f"the data has {len(customers)}"
        )
    k = instance.vehicles
    best: tuple[list[Route], float] | None = None
    lengths: dict[Route, float] = {}
    for order in itertools.permutations(customers):
        for cuts in itertools.combinations(range(1, len(order)), k - 1):
            bounds = [0, *cuts, len(order)]
            routes = [tuple(order[a:b]) for a, b in itertools.pairwise(bounds)]
            if with_capacity and any(instance.route_load(r) > instance.capacity for r in routes):
                continue
            total = 0.0
            for r in routes:
                if r not in lengths:
                    lengths[r] = instance.route_length(r)
                total += lengths[r]
            if best is None or total < best[1] - 1e-12:
                best = (routes, total)
    return best


def route_map_chart(instance: RoutingInstance, routes: list[Route], title: str) -> dict[str, Any]:
    """A line chart of [longitude, latitude] points: one series per vehicle, depot to depot."""
    series = []
    for v, route in enumerate(routes, start=1):
        path = [instance.depot, *route, instance.depot]
        points = [[float(instance.coordinates[i, 1]), float(instance.coordinates[i, 0])] for i in path]
        series.append(
            {"name": f"vehicle {v}: " + " -> ".join(instance.names[i] for i in path), "data": points}
        )
    return {"type": "line", "title": title, "label": "latitude", "series": series, "categories": []}


def describe_routes(instance: RoutingInstance, routes: list[Route]) -> list[dict[str, Any]]:
    return [
        {
            "vehicle": v,
            "stops": [instance.names[i] for i in route],
            "distance_km": round(instance.route_length(route), 6),
            "load": instance.route_load(route),
            "within_capacity": instance.route_load(route) <= instance.capacity,
        }
        for v, route in enumerate(routes, start=1)
    ]


def _best_routes(
    instance: RoutingInstance, qubo: Qubo, run: VariationalRun, kind: str, emit: Emitter | None
) -> tuple[list[Route] | None, str]:
    """The shortest valid set of routes among the measured bitstrings (MinimumEigenOptimizer's pick)."""
    decode = _decoder(instance, qubo, run.distribution.size)
    measured = [(z, decode(z)) for z in np.flatnonzero(run.counts)]
    feasible = [routes for _, routes in measured if routes is not None]
    if feasible:
        best = min(feasible, key=lambda routes: sum(instance.route_length(r) for r in routes))
        return best, f"best feasible bitstring among {run.readout_shots} measurements of the final circuit"
    rule = f"none of {run.readout_shots} measurements of the final circuit was a valid set of routes"
    if emit is not None:
        emit.log(f"{kind}: {rule}", level="warning")
    return None, rule


def _decoder(instance: RoutingInstance, qubo: Qubo, states: int) -> Any:
    edge_bits = basis_bits(qubo.qubits)[:, : len(qubo.edges)]

    def decode(z: Any) -> list[Route] | None:
        used = {qubo.edges[k] for k in np.flatnonzero(edge_bits[z])}
        return routes_from_edges(instance, used)

    return decode


def _routing_charts(
    instance: RoutingInstance,
    routes: list[Route] | None,
    exact_routes: list[Route],
    setup: VariationalSetup,
    run: VariationalRun,
) -> list[dict[str, Any]]:
    charts: list[dict[str, Any]] = []
    if routes is not None:
        charts.append(route_map_chart(instance, routes, f"{setup.kind} routes (longitude, latitude)"))
    charts.append(route_map_chart(instance, exact_routes, "Exact optimum routes (longitude, latitude)"))
    charts.append(convergence_chart(setup.kind, setup.optimizer, run.curve, "energy (scaled QUBO)"))
    return charts


def solve_quantum(
    instance: RoutingInstance,
    kind: str,
    optimizer: str = "COBYLA",
    maxiter: int = 100,
    reps: int = 2,
    seed: int = 42,
    shots: int | None = None,
    emit: Emitter | None = None,
    noise_model: str | None = None,
    device: DeviceTarget | None = None,
) -> dict[str, Any]:
    """QAOA or SamplingVQE (RealAmplitudes) on the QUBO (:func:`.quantum.variational.optimise_and_read_out`);
    the routes are the best feasible bitstring among the final circuit's measurements (as Qiskit's
    MinimumEigenOptimizer picks them). With ``noise_model`` or ``device`` the circuits run there."""
    if kind not in ("QAOA", "VQE"):
        raise ValueError(f"unknown quantum optimizer {kind!r}; expected QAOA or VQE")
    if device is not None and optimizer == "ADAM":
        raise ValueError(ADAM_ON_A_DEVICE)
    started = time.monotonic()
    qubo, energy_np = build_qubo(instance)
    n = qubo.qubits
    refusal = noisy_refusal(n, noise_model, device, evaluations_of(optimizer, maxiter))
    if refusal is not None:
        raise ValueError(refusal)

    def ising() -> Any:
        return ising_operator(energy_np, n)

    setup = VariationalSetup(
        kind, reps, optimizer, maxiter, seed, shots, "RealAmplitudes", 1.0, noise_model, device, ising
    )
    describe = f"VehicleRouting QUBO, {len(qubo.edges)} edge qubits + {qubo.slack_bits} slack qubits"
    run = optimise_and_read_out(energy_np, setup, emit, describe, progress=(15, 70))
    if emit is not None:
        emit.progress(88, "routes, exact optimum and charts", "post-processing")
    exact = solve_exact(instance, with_capacity=False)
    assert exact is not None  # every split fits when loads are ignored
    exact_routes, exact_length = exact
    routes, rule = _best_routes(instance, qubo, run, kind, emit)
    length = sum(instance.route_length(r) for r in routes) if routes is not None else None
    final = run.distribution
    decode = _decoder(instance, qubo, final.size)
    lowest = energy_np.min() + 1e-9
    return {
        **run.facts,
        "routes": routes,
        "total_distance_km": length,
        "found_routes": routes is not None,
        "exact_routes": exact_routes,
        "exact_distance_km": exact_length,
        "gap_km": (length - exact_length) if length is not None else None,
        "found_optimum": length is not None and length <= exact_length + 1e-9,
        "optimum_probability": float(sum(final[z] for z in range(2**n) if energy_np[z] <= lowest)),
        "feasible_probability": float(
            sum(final[z] for z in np.flatnonzero(final > 1e-12) if decode(z) is not None)
        ),
        "selection_rule": rule,
        "qubits": n,
        "edge_qubits": len(qubo.edges),
        "slack_qubits": qubo.slack_bits,
        "qubo": {"penalty": qubo.penalty, "scale": qubo.scale, "penalty_rule": "1 + sum of the distances"},
        "charts": _routing_charts(instance, routes, exact_routes, setup, run),
        "duration_seconds": round(time.monotonic() - started, 3),
    }
