"""The "vehicle-routing" job: routes for ``num_vehicles`` vehicles from the depot (row ``depot_index``,
1-based) through every other row of the dataset, each row a stop at ``coordinate_columns`` (latitude,
longitude) with a load in ``demand_column``.

Body (``schemas/problems/vehicle-routing.json`` job.bodySchema): ``model`` Classical enumerates every split
of the stops into routes and keeps the shortest whose loads fit ``vehicle_capacity``; QAOA and VQE solve
qiskit-optimization's VehicleRouting QUBO (:mod:`.routing`, which has no
loads: the capacity is checked on the routes and reported) with ``optimizer_alg``,
``optimizer_alg_maxiter``, ``circuit_repetition`` and ``quantum_shots``, next to the exact optimum of the
same formulation (the baseline). Instances larger than the simulator's qubit limit are refused, naming it.
Under the extension's noise model or on an IBM device (``use_quantum_simulator`` false) the circuits run
there; an instance too large for the noisy simulation is refused with its qubits, memory and time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.run_record import seed_everything
from qmlstudio_worker.jobs.support import (
    JobInputs,
    Stopwatch,
    base_result,
    data_errors,
    device_target,
    open_job_inputs,
    quantum_shots,
    require_fields,
    run_record,
    warn_device_note,
)
from qmlstudio_worker.ml.preprocess import numeric_features
from qmlstudio_worker.problems.vehicle_routing.routing import (
    MAX_NOISY_QUBITS,
    Route,
    RoutingInstance,
    describe_routes,
    noisy_refusal,
    qaoa_circuit_for,
    qubit_count,
    route_map_chart,
    solve_exact,
)
from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum.run_facts import FINAL_CIRCUIT, quantum_run

PROBLEM = "vehicle-routing"
#: The model family each quantum choice runs (the resource estimate builds what the job runs from it).
ESTIMATE_MODELS = {"VQE": "VQE", "QAOA": "QAOA"}
#: Above this many qubits a noisy run is refused (noisy_refusal says why); the estimate says so too.
NOISY_QUBIT_LIMIT = MAX_NOISY_QUBITS


def circuit_qubits(_params: Mapping[str, Any], rows: int | None) -> int:
    """The routing QUBO's qubits for a dataset of ``rows`` stops (depot included)."""
    if rows is None:
        raise ValueError("the vehicle-routing estimate needs the dataset's row count (rows)")
    return qubit_count(rows)


def qaoa_circuit(rows: int | None, reps: int) -> Any:
    """The QAOA the run builds from the routing QUBO's own terms."""
    return qaoa_circuit_for(int(rows or 0), reps)


def _instance(params: dict[str, Any], frame: Any) -> RoutingInstance:
    columns = [*params["coordinate_columns"], params["demand_column"]]
    values = numeric_features(frame, columns)
    if values.isna().to_numpy().any():
        raise ValueError(f"the columns {', '.join(columns)} have empty or non-numeric cells")
    depot = int(params["depot_index"]) - 1
    if depot >= len(frame):
        raise JobValidationError(f"Depot row cannot exceed {len(frame)}", "/depot_index")
    instance = RoutingInstance(
        names=["depot" if i == depot else f"stop {i + 1}" for i in range(len(frame))],
        coordinates=values[list(params["coordinate_columns"])].to_numpy(dtype=np.float64),
        demand=values[params["demand_column"]].to_numpy(dtype=np.float64),
        depot=depot,
        vehicles=int(params["num_vehicles"]),
        capacity=float(params["vehicle_capacity"]),
    )
    instance.validate()
    return instance


def _metrics(instance: RoutingInstance, routes: list[tuple[int, ...]]) -> dict[str, float]:
    loads = [instance.route_load(r) for r in routes]
    return {
        "total_distance_km": sum(instance.route_length(r) for r in routes),
        "vehicles_used": float(sum(1 for r in routes if r)),
        "max_load": max(loads) if loads else 0.0,
        "routes_within_capacity": float(sum(1 for load in loads if load <= instance.capacity)),
    }


Solved = tuple[list[Route], dict[str, Any], list[dict[str, Any]], dict[str, Any] | None, dict[str, Any]]


def _solve_exactly(instance: RoutingInstance) -> Solved:
    """The shortest routes within the capacity (routes, metrics, charts, baseline, details)."""
    with data_errors("/num_vehicles"):
        solved = solve_exact(instance, with_capacity=True)
    if solved is None:
        raise JobValidationError(
            f"No split of the stops into {instance.vehicles} routes fits the vehicle capacity "
            f"{instance.capacity:g}",
            "/vehicle_capacity",
        )
    routes, _ = solved
    charts = [route_map_chart(instance, routes, "Routes (longitude, latitude)")]
    return routes, _metrics(instance, routes), charts, None, {"solver": "exact enumeration with the capacity"}


def _refuse_noisy_size(params: dict[str, Any], inputs: JobInputs, instance: RoutingInstance) -> None:
    """Refuse an instance too large for the noisy simulator before transpiling, naming the field that
    chose the noisy simulation."""
    from qmlstudio_worker.problems.vehicle_routing.routing import evaluations_of

    evaluations = evaluations_of(params["optimizer_alg"], int(params["optimizer_alg_maxiter"]))
    device = device_target(params, inputs)
    refusal = noisy_refusal(qubit_count(instance.size), inputs.quantum_noise_model, device, evaluations)
    if refusal is not None:
        noise = inputs.quantum_noise_model
        raise JobValidationError(
            refusal, "/extension/quantum_noise_model" if noise else "/params/use_quantum_simulator"
        )


def _solve_on_circuits(
    params: dict[str, Any], inputs: JobInputs, instance: RoutingInstance, emit: Emitter
) -> Solved:
    """QAOA or VQE on the QUBO, beside the exact optimum of the same formulation."""
    from qmlstudio_worker.problems.vehicle_routing.routing import solve_quantum

    _refuse_noisy_size(params, inputs, instance)
    with data_errors("/model"):
        q = solve_quantum(
            instance,
            str(params["model"]),
            optimizer=params["optimizer_alg"],
            maxiter=int(params["optimizer_alg_maxiter"]),
            reps=int(params["circuit_repetition"]),
            seed=inputs.seed,
            shots=quantum_shots(params, inputs.quantum_noise_model, device_ok=True),
            emit=emit,
            noise_model=inputs.quantum_noise_model,
            device=device_target(params, inputs),
        )
    routes = q["routes"] or []
    metrics = _metrics(instance, routes) if q["found_routes"] else {}
    metrics["optimum_probability"] = q["optimum_probability"]
    metrics["feasible_probability"] = q["feasible_probability"]
    baseline = {
        "name": "exact optimum (enumeration, same formulation)",
        "metrics": _metrics(instance, q["exact_routes"]),
    }
    details = {k: v for k, v in q.items() if k not in ("charts", "routes", "exact_routes")}
    details["exact_routes"] = describe_routes(instance, q["exact_routes"])
    if q["found_routes"] and metrics["routes_within_capacity"] < len(routes):
        emit.log("some routes exceed the vehicle capacity (the QUBO has no loads)", level="warning")
    return routes, metrics, q["charts"], baseline, details


def run(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    emit = ctx.emitter
    clock = Stopwatch()
    inputs = open_job_inputs(params, ctx, "dataset_url")
    warn_device_note(params, emit)
    model = str(params["model"])
    require_fields(inputs.frame, list(params["coordinate_columns"]), "/coordinate_columns")
    require_fields(inputs.frame, [params["demand_column"]], "/demand_column")
    with data_errors(None):
        instance = _instance(params, inputs.frame)
    emit.log(
        f"{PROBLEM}: {inputs.label}, {instance.size} rows (depot row {instance.depot + 1}), "
        f"{instance.vehicles} vehicles of capacity {instance.capacity:g}, model {model}, seed {inputs.seed}"
    )
    seed_everything(inputs.seed)
    solved = (
        _solve_exactly(instance)
        if model == "Classical"
        else _solve_on_circuits(params, inputs, instance, emit)
    )
    routes, metrics, charts, baseline, details = solved
    for name, value in metrics.items():
        emit.metric(name, value)
    for chart in charts:
        emit.chart_spec(chart)
    result = base_result(
        problem=PROBLEM,
        model=model,
        model_type="Classical" if model == "Classical" else "Quantum",
        metrics=metrics,
        baseline=baseline,
        charts=charts,
    )
    result["selection"] = {"routes": describe_routes(instance, routes), **details}
    if model != "Classical":
        result["quantum_run"] = quantum_run(details, FINAL_CIRCUIT)
    result["training_data"] = {
        "stops": instance.size,
        "depot_row": instance.depot + 1,
        "vehicles": instance.vehicles,
        "capacity": instance.capacity,
        "distance": "great-circle kilometres",
    }
    result["dataset"] = inputs.dataset_summary(instance.size)
    result["run_record"] = run_record(params, inputs, {"model": model})
    result["seed"] = inputs.seed
    result["duration_seconds"] = clock.seconds()
    emit.progress(100, "done")
    return result
