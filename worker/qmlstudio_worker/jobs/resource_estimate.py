"""Resource estimate of a quantum job before it runs (issue #12, "Resource estimate before running").

From a job body (the same one execute-job sends) :func:`estimate` builds the Qiskit circuit the handler's
model would run, transpiles it for the chosen simulator (``AerSimulator``, optimization level 1, seeded)
and reports its qubits, depth and two-qubit-gate count; the circuit evaluations per optimizer iteration
(or per epoch for the hybrid forecasters), the iterations, the total shots a shot-based backend would
take, and a run time measured on this machine. Timing (:func:`_timed`): one warm-up call excluded (first-call
costs of torch, Aer and the noise model), then the median of ``TIMING_CALLS`` calls, each the call the run
itself repeats, scaled by the run's true number of such calls: the optimizer's evaluations
(:func:`optimizer_evaluations`: SPSA's calibration included) and, for the fraud VQC, the exact trainings of
the angle-range search that precede the real one (``ANGLE_RANGES`` of
:mod:`.quantum.variational_classifier` on the fit part of the rows).
Evaluation counts per iteration on a sampler: COBYLA 1, SPSA 2, ADAM 2 P + 1 (parameter shift over P
parameters; our exact simulator takes one autograd pass instead, which the time estimate uses). ``rows``
(the dataset's row count, which the body does not carry) scales the per-row models; without it they are
reported per row.

Off the ideal simulator the circuit is transpiled for the chosen backend's target instead, as the run does
(:mod:`.backends`, :mod:`.devices`: measured, optimization level 1, seeded with the run's default seed): a
noise model's device snapshot, or a real device's own snapshot from the fake provider (offline, so no token
or network is needed; the live device may be calibrated differently). Under a noise model the run time is
timed on this machine's noisy simulation of that circuit (:mod:`.backends`: the run's method and shots) in
the run's call shape (:func:`noisy_plan`): one row per call for portfolio and routing (each optimizer
evaluation, then the final measurement), the training rows per call for the VQC, calls of up to
``ROWS_PER_CALL`` kernel entries for the QSVC; ``simulator_calls`` and ``noisy_circuits_run`` say what the
run will call. A device's run time depends on the provider's queue and is not estimated.

Runs that TRAIN under the noise model on the torch density simulation (:mod:`.noisy_density`: the hybrid
forecasters, and ADAM for the VQC, portfolio and routing) are estimated as they run
(:func:`noisy_training_plan`, :func:`_noisy_training`): the density-matrix rows they simulate (the hybrid:
per epoch each training window of the SELECTED rows but the held-out last fifth forward and backward, then
every window's loss, and the held-out windows once before the first epoch; ADAM:
the training rows, or one row, per step), timed forward and backward in the run's chunk shape, plus the
one-time transpile and noise setup; shots are counted only for the Aer circuits that follow (the hybrid's
test windows, the VQC's test rows, portfolio's and routing's final circuit). Above the noisy-training limit
(:data:`.noisy_density.NOISY_TRAINING_LIMITS`) the note is the run's own refusal.

Every figure above is per run. A job with the extension's ``repeats`` (1 to 10: :mod:`.repeats` runs the
same handler once per seed) spends the run's totals that many times: ``all_repeats`` (:func:`all_repeats`)
holds the circuits, shots, time and calls for all of them, and the browser's panel reads its time from there.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from qmlstudio_worker.jobs.kinds import problem_kind
from qmlstudio_worker.problem_schemas import ProblemSchemas, resolve_schemas_dir
from qmlstudio_worker.quantum.statevector import Ansatz, circuit_summary

EVALUATIONS_PER_ITERATION = {"COBYLA": 1, "SPSA": 2}
#: What an ideal estimate's depth and gates count: the circuit as the run's simulators apply it (and log it).
IDEAL_GATES = "the run's exact simulator (u and cx gates, as the run logs its circuit)"
#: The seed a run transpiles with unless told otherwise (the server's default job seed).
RUN_SEED = 42
#: Rows of one timed noisy simulation (its time per circuit scales the estimate).
NOISY_TIMING_ROWS = 8
#: The models with a noisy and a device path (the others' jobs refuse a device, and a noise model too
#: unless listed in TESTED_UNDER_NOISE: ml/job_support.require_ideal_simulator in their handlers).
NOISY_PATH_MODELS = {
    "Variational Quantum Classifier",
    "Quantum Support Vector Classifier",
    "VQE",
    "QAOA",
}
#: The variational optimisers of a QUBO: one parameter row per energy evaluation.
OPTIMISERS = {"VQE", "QAOA"}
#: The hybrid forecasters train under a noise model on the torch density simulation (:mod:`.noisy_density`)
#: and run their test predictions on Aer with shots (hybrid.py).
TRAINED_UNDER_NOISE = {"Hybrid quantum neural network"}
#: Timed calls after the warm-up call (excluded: first-call costs of torch, Aer and the noise model); their
#: median is the estimate's cost per call, so a call slowed by another process on the 2 cores (seen: 2 ms
#: calls taking 60 ms now and then) does not swing the estimate. Cheap calls are timed until
#: ``TIMING_MIN_SECONDS`` have passed (at most ``TIMING_MAX_CALLS``), expensive ones at least once.
TIMING_CALLS = 3
TIMING_MAX_CALLS = 50
TIMING_MIN_SECONDS = 0.5
#: Fewer timed calls (at least one) once the warm-up and the timed calls took this long (a 14-qubit noisy
#: call takes several seconds, and the server waits for the estimate).
TIMING_BUDGET_SECONDS = 10.0

PROBLEM_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def _timed(action: Callable[[], Any]) -> float:
    """The median seconds of the timed calls of ``action`` after one warm-up call (excluded): at least
    ``TIMING_CALLS`` and ``TIMING_MIN_SECONDS`` of them, within ``TIMING_BUDGET_SECONDS`` (one at least)."""
    started = time.perf_counter()
    action()
    spent = time.perf_counter() - started
    samples: list[float] = []
    while not samples or (
        spent < TIMING_BUDGET_SECONDS
        and len(samples) < TIMING_MAX_CALLS
        and (len(samples) < TIMING_CALLS or sum(samples) < TIMING_MIN_SECONDS)
    ):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
        spent += samples[-1]
    return float(np.median(samples))


def optimizer_evaluations(optimizer: str, maxiter: int) -> int:
    """Objective evaluations a run of ``optimizer`` makes (:func:`.optimizers.minimize`): COBYLA and ADAM
    one per iteration, SPSA its calibration (2 per step), 2 per iteration and the final point."""
    from qmlstudio_worker.quantum.optimizers import CALIBRATION_STEPS

    if optimizer == "SPSA":
        return 2 * CALIBRATION_STEPS + 2 * maxiter + 1
    return maxiter


def _compiled_summary(circuit: Any, compiled: Any, transpiled_for: str) -> dict[str, Any]:
    """The summary both transpile targets report: ``circuit``'s own size, ``compiled``'s depth and gates."""
    return {
        "qubits": int(circuit.num_qubits),
        "parameters": int(circuit.num_parameters),
        "depth": int(compiled.depth()),
        "two_qubit_gates": int(sum(1 for inst in compiled.data if inst.operation.num_qubits == 2)),
        "gate_counts": {str(k): int(v) for k, v in compiled.count_ops().items()},
        "transpiled_for": transpiled_for,
    }


def model_name(params: Mapping[str, Any]) -> str:
    """The model a body names: ``model``, else ``model_name``, else ``training_model_method``."""
    for key in ("model", "model_name", "training_model_method"):
        value = params.get(key)
        if isinstance(value, str) and value:
            return value
    return "chosen"


def problem_handler(kind: str) -> Any:
    """The handler module that runs the jobs of problem ``kind`` (its file's ``job.worker``, else its id):
    it declares in ``ESTIMATE_MODELS`` which model family each of its quantum choices runs."""
    import importlib

    found = problem_kind(kind, ProblemSchemas(resolve_schemas_dir())) if PROBLEM_ID.fullmatch(kind) else None
    if found is None:
        raise ValueError(f"problem {kind!r} has no quantum model to estimate")
    return importlib.import_module(found.handler_module)


#: Where a family's builder reads a problem's own figures: ``inputs(body)`` of the handler's declaration.
EstimateInputs = Callable[[Mapping[str, Any]], Mapping[str, Any]]


def declared_family(
    entry: str | tuple[str, EstimateInputs], params: Mapping[str, Any]
) -> tuple[str, Mapping[str, Any]]:
    """An ``ESTIMATE_MODELS`` entry as (family, the builder's inputs): a family alone, or (family,
    ``inputs``) when the builder needs figures only the problem knows (the QCNN's patches, the QSVM's kernel
    cap); the handler computes them, so this layer imports no problem."""
    if isinstance(entry, str):
        return entry, {}
    family, inputs = entry
    return family, inputs(params)


def quantum_family(
    handler: Any, kind: str, params: Mapping[str, Any], model: str
) -> tuple[str, Mapping[str, Any]]:
    """The model family the body's job runs and its builder's inputs, as its handler declares them
    (``ESTIMATE_MODELS``: the body's model, else its ``training_model_type``, to a key of :data:`FAMILIES`,
    see :func:`declared_family`). A body whose type is Classical, or that names a model its handler runs
    without circuits, runs no quantum circuit."""
    declared = params.get("training_model_type")
    if isinstance(declared, str) and declared.lower() == "classical":
        raise ValueError(f"the {model} model runs no quantum circuit")
    families: Mapping[str, Any] = getattr(handler, "ESTIMATE_MODELS", {})
    for choice in (model, declared):
        if isinstance(choice, str) and choice in families:
            return declared_family(families[choice], params)
    if "quantum" in model.lower() or (isinstance(declared, str) and declared.lower() == "quantum"):
        raise ValueError(f"problem {kind!r} has no quantum model to estimate")
    raise ValueError(f"the {model} model runs no quantum circuit")


def target_summary(circuit: Any, backend: Any, what: str) -> dict[str, Any]:
    """Qubits, depth and two-qubit gates of ``circuit`` measured and transpiled for a device target (ISA), as
    :func:`.backends.prepare_noisy` and :func:`.devices.prepare_device` transpile it for a run."""
    from qiskit.transpiler import generate_preset_pass_manager

    from qmlstudio_worker.quantum.devices import OPTIMIZATION_LEVEL

    measured = circuit.copy()
    measured.measure_all()
    manager = generate_preset_pass_manager(
        optimization_level=OPTIMIZATION_LEVEL, backend=backend, seed_transpiler=RUN_SEED
    )
    compiled = manager.run(measured)
    return _compiled_summary(
        circuit, compiled, f"{backend.name} ({what}), optimization level {OPTIMIZATION_LEVEL}"
    )


def _noisy_seconds_per_call(
    circuit: Any, noise_model: str, shots: int, rows_per_call: int
) -> tuple[float, float]:
    """Seconds of one call of this machine's noisy simulation of ``circuit`` with ``rows_per_call``
    parameter rows: the call a noisy run repeats (one row per optimizer evaluation for portfolio and routing,
    the training rows for the VQC, up to ``ROWS_PER_CALL`` kernel entries for the QSVC); and the seconds of
    transpiling for the device and building its noise, which the run spends once."""
    from qmlstudio_worker.quantum.backends import prepare_noisy

    runner = prepare_noisy(circuit, list(circuit.parameters), noise_model, shots, RUN_SEED)
    values = np.random.default_rng(0).uniform(0.1, 1.0, (rows_per_call, circuit.num_parameters))
    return _timed(lambda: runner.probabilities(values)), runner.transpile_seconds


#: Above this many active qubits a pass of the torch density simulation is timed ONCE in the run's chunk
#: shape (after a one-row warm-up), not as the median of several: an 8-qubit pass of 32 rows takes about 22 s
#: backward. Fewer rows per timed pass would misprice it: per row, 32-row passes cost 2.4x (backward) and
#: 1.6x (forward) what 2- to 8-row passes cost at 8 qubits here (memory traffic, checkpointing).
DENSITY_TIMED_ONCE_ABOVE = 6


def _noisy_program(circuit: Any, noise_model: str, shots: int) -> tuple[Any, Any, float]:
    """(Aer runner, torch density program, seconds of building both) for ``circuit`` under the noise
    model, as a run under noise builds them (:func:`.backends.prepare_noisy`,
    :func:`.noisy_density.from_noisy_circuit`)."""
    from qmlstudio_worker.quantum.backends import prepare_noisy
    from qmlstudio_worker.quantum.noisy_density import from_noisy_circuit

    started = time.perf_counter()
    runner = prepare_noisy(circuit, list(circuit.parameters), noise_model, shots, RUN_SEED)
    program = from_noisy_circuit(runner)
    return runner, program, time.perf_counter() - started


def _density_seconds_per_row(program: Any, run_chunk: int, backward: bool, threads: int | None) -> float:
    """Seconds per row of the torch density simulation forward (and backward with ``backward``), timed in
    the run's shape: passes of the run's chunk of ``run_chunk`` rows (its checkpointing decision with them),
    with the run's torch threads; above :data:`DENSITY_TIMED_ONCE_ABOVE` active qubits one timed pass after
    a one-row warm-up."""
    import torch

    from qmlstudio_worker.ml.recurrent import torch_settings

    rows = max(1, min(run_chunk, int(program.rows_per_chunk)))
    values = torch.as_tensor(
        np.random.default_rng(0).uniform(0.1, 1.0, (rows, len(program.parameters))), dtype=torch.float64
    )

    def call(batch: Any = values) -> None:
        if backward:
            program.probabilities(batch.clone().requires_grad_(True))[:, 0].sum().backward()
            return
        with torch.no_grad():
            program.probabilities(batch)

    with torch_settings(threads, deterministic=False):
        if int(program.qubits) <= DENSITY_TIMED_ONCE_ABOVE:
            return _timed(call) / rows
        call(values[:1])  # warm-up: the program's tensors and torch's first-call costs
        started = time.perf_counter()
        call()
        return (time.perf_counter() - started) / rows


def _aer_seconds_per_row(runner: Any, rows: int) -> float:
    """Seconds per row of the Aer noisy simulation (shots included) in calls of up to ``ROWS_PER_CALL``."""
    from qmlstudio_worker.quantum.backends import ROWS_PER_CALL

    batch = max(1, min(rows, ROWS_PER_CALL))
    values = np.random.default_rng(0).uniform(0.1, 1.0, (batch, len(runner.parameters)))
    return _timed(lambda: runner.probabilities(values)) / batch


def noisy_training_plan(
    model: str, evaluations: int, train_rows: int | None, test_rows: int | None
) -> dict[str, int] | None:
    """What a run that TRAINS on the torch density simulation does (hybrid forecasters under a noise model,
    ADAM under a noise model): ``density_rows`` simulated in all (each with autograd during training),
    ``per_iteration`` of them per epoch or step, and the Aer ``aer_calls`` and ``aer_circuits`` (each
    ``shots`` shots) that follow; None when the rows are unknown.

    - hybrid: the held-out last training windows (:func:`.recurrent.held_out_windows`) once before the
      first epoch; every epoch, each other training window forward and backward, then the loss of every
      training, test and held-out window without gradient; then the test windows on Aer;
    - the fraud VQC: every ADAM step, its training rows forward and backward; then the test rows on Aer;
    - portfolio and routing: one row per ADAM step; then the final circuit on Aer (one row)."""
    from qmlstudio_worker.ml.recurrent import held_out_windows
    from qmlstudio_worker.quantum.backends import ROWS_PER_CALL

    if model in OPTIMISERS:
        return {
            "per_iteration": 1,
            "density_rows": evaluations,
            "aer_calls": 1,
            "aer_circuits": 1,
            "held_out": 0,
        }
    if train_rows is None or test_rows is None:
        return None
    hybrid_run = model in TRAINED_UNDER_NOISE
    # The hybrid's held-out windows: fit and held out add up to the training windows each epoch.
    held = held_out_windows(train_rows) if hybrid_run else 0
    per_epoch = 2 * train_rows + test_rows if hybrid_run else train_rows
    return {
        "per_iteration": per_epoch,
        "density_rows": evaluations * per_epoch + held,
        "held_out": held,
        "aer_calls": math.ceil(test_rows / ROWS_PER_CALL),
        "aer_circuits": test_rows,
    }


def _noisy_training(found: Mapping[str, Any], noise_model: str, shots: int) -> dict[str, Any]:
    """The estimate of a run that trains under the noise model on the torch density simulation: its counts
    (:func:`noisy_training_plan`), its time from timed passes of that simulation in the run's shape and of
    the Aer calls that follow, or the run's own refusal above the noisy-training limit."""
    from qmlstudio_worker.ml.recurrent import DEFAULT_BATCH_SIZE
    from qmlstudio_worker.quantum.noisy_density import NoisyDensityError, check_noisy_training_qubits

    circuit = found["circuit"]
    hybrid_run = found["model"] in TRAINED_UNDER_NOISE
    if hybrid_run:
        windows = found.get("windows")
        train, test = windows if windows is not None else (None, None)
        use, per_step, evaluations = "hybrid", train, int(found["iterations"])
    elif found["model"] in OPTIMISERS:
        train, test = 1, 1
        use, per_step, evaluations = "one_row", 1, int(found["optimizer_evaluations"])
    else:
        train, test = found.get("train_rows"), found.get("test_rows")
        use, per_step, evaluations = "rows", train, int(found["optimizer_evaluations"])
    plan = noisy_training_plan(found["model"], evaluations, train, test)
    out: dict[str, Any] = {"plan": plan, "seconds": None, "note": None, "active_qubits": None}
    try:
        check_noisy_training_qubits(circuit.num_qubits, per_step or DEFAULT_BATCH_SIZE, use)
        runner, program, setup = _noisy_program(circuit, noise_model, shots)
        out["active_qubits"] = program.qubits
        check_noisy_training_qubits(program.qubits, per_step or DEFAULT_BATCH_SIZE, use)
    except NoisyDensityError as exc:  # the run refuses it the same way
        out["note"] = str(exc)
        return out
    if plan is None or train is None or test is None:
        return out
    threads = None if use == "one_row" else 1  # the hybrid and the VQC train on one torch thread
    held = plan["held_out"]
    fit = train - held
    chunk = min(DEFAULT_BATCH_SIZE, fit) if hybrid_run else train
    backward = _density_seconds_per_row(program, chunk, True, threads)
    seconds = setup + evaluations * (fit if hybrid_run else per_step or 0) * backward
    if hybrid_run:  # every epoch's loss of all windows (and the held-out ones first), without gradient
        forward = _density_seconds_per_row(program, program.rows_per_chunk, False, threads)
        seconds += (evaluations * (train + test + held) + held) * forward
    seconds += float(found.get("exact_search_seconds") or 0.0)  # the VQC's exact angle-range search
    out["seconds"] = seconds + plan["aer_circuits"] * _aer_seconds_per_row(runner, plan["aer_circuits"])
    return out


def noisy_plan(
    model: str, evaluations: int, train_rows: int | None, test_rows: int | None
) -> tuple[int, int] | None:
    """(simulator calls, circuits) of a noisy run, as its code calls
    :meth:`.backends.NoisyCircuit.probabilities`; None where the count depends on the data (the QSVC's
    support vectors) or the rows are unknown.

    - portfolio and routing: one call of one row per optimizer evaluation, then one for the final
      measurement;
    - the fraud VQC: every evaluation measures its training rows (calls of at most ``ROWS_PER_CALL``
      rows), then the test rows are scored the same way."""
    from qmlstudio_worker.quantum.backends import ROWS_PER_CALL

    if model in OPTIMISERS:
        return evaluations + 1, evaluations + 1
    if model != "Variational Quantum Classifier" or train_rows is None or test_rows is None:
        return None
    per_evaluation = math.ceil(train_rows / ROWS_PER_CALL)
    calls = evaluations * per_evaluation + math.ceil(test_rows / ROWS_PER_CALL)
    return calls, evaluations * train_rows + test_rows


def _target(params: Mapping[str, Any], noise_model: str | None) -> tuple[str, str | None, Any | None]:
    """Where the body's circuits run: ("ideal", None, None), ("noise_model", name, snapshot) or
    ("device", name, snapshot of that device)."""
    from qmlstudio_worker.quantum.backends import fake_backend, noise_model_name

    if params.get("use_quantum_simulator") is False:
        from qmlstudio_worker.quantum.devices import device_snapshot

        device = params.get("quantum_device_backend")
        snapshot = device_snapshot(device) if isinstance(device, str) and device else None
        if snapshot is None:
            raise ValueError(f"the device {device or '(none)'} has no offline snapshot to transpile for")
        return "device", str(device), snapshot
    name = noise_model_name(noise_model)
    return ("noise_model", name, fake_backend(name)) if name is not None else ("ideal", None, None)


def _per_iteration(optimizer: str, parameters: int) -> int:
    """Circuit evaluations per iteration on a sampler (ADAM: the parameter shift's 2 P + 1)."""
    return EVALUATIONS_PER_ITERATION.get(optimizer, 2 * parameters + 1)


def _binary_classifier(params: Mapping[str, Any], rows: int | None, measured: bool = False) -> dict[str, Any]:
    import torch

    from qmlstudio_worker.quantum import kernel_classifier, variational_classifier
    from qmlstudio_worker.quantum.statevector import qiskit_feature_map, zz_feature_map_states

    qubits = variational_classifier.DEFAULT_QUBITS
    reps = int(params["circuit_repetition"])
    share = 1.0 - float(params["test_ratio"])
    train = None if rows is None else max(1, round(rows * share))
    if params.get("model") == kernel_classifier.MODEL:
        from qiskit.circuit import ParameterVector

        feature_map = qiskit_feature_map(qubits, reps)
        other = feature_map.assign_parameters(ParameterVector("y", feature_map.num_parameters))
        circuit = feature_map.compose(other.inverse())  # compute-uncompute: U(y)^dagger U(x)
        angles = np.random.default_rng(0).uniform(0, 0.5, (200, qubits))
        per_entry = (
            _timed(lambda: kernel_classifier.fidelity_kernel(angles, angles, reps, symmetric=True)) / 200**2
        )
        test = None if rows is None or train is None else rows - train
        # a noise model or a device measures one circuit per entry, on capped rows (qsvc's caps)
        evaluations = (
            None if train is None else kernel_classifier.kernel_evaluations(train, test or 0, measured)[2]
        )
        return {
            "model": kernel_classifier.MODEL,
            "circuit": circuit,
            "evaluations_per_iteration": evaluations,
            "iterations": 1,
            "evaluation_unit": "kernel entries (training pairs, then test x training rows)",
            "seconds": None if evaluations is None else per_entry * evaluations,
        }
    pqc = str(params["pqc"])
    optimizer = str(params["optimizer_alg"])
    iterations = int(params["optimizer_alg_maxiter"])
    ansatz = Ansatz(pqc, qubits, reps)
    circuit = qiskit_feature_map(qubits, variational_classifier.FEATURE_MAP_REPS).compose(
        ansatz.qiskit_circuit()
    )
    cap = (
        min(variational_classifier.MAX_TRAIN_ROWS, variational_classifier.MAX_NOISY_TRAIN_ROWS)
        if measured
        else variational_classifier.MAX_TRAIN_ROWS
    )
    used = min(train, cap) if train is not None else None
    evaluations = optimizer_evaluations(optimizer, iterations)

    def loss_seconds(batch: int) -> float:
        """One evaluation of the training loss as the run calls it (the VQC's ``loss``): the odd-parity
        probability of ``batch`` rows and the class-weighted cross-entropy; ADAM adds the backward pass."""
        states = zz_feature_map_states(
            np.random.default_rng(0).uniform(0, 0.5, (batch, qubits)), variational_classifier.FEATURE_MAP_REPS
        )
        fraud = torch.zeros(batch, dtype=torch.bool)
        fraud[::5] = True
        weights = torch.zeros(ansatz.num_parameters, dtype=torch.float64, requires_grad=optimizer == "ADAM")

        def call() -> None:
            if optimizer == "ADAM":
                variational_classifier._weighted_cross_entropy(
                    variational_classifier._odd_probability(states, ansatz, weights), fraud
                ).backward()
                return
            with torch.no_grad():
                variational_classifier._weighted_cross_entropy(
                    variational_classifier._odd_probability(states, ansatz, weights), fraud
                )

        return _timed(call)

    seconds = None
    search_seconds = None
    if used is not None:
        # the angle range is chosen first: one exact training per candidate on the fit part of the rows
        fit_rows = max(1, used - round(used * variational_classifier.VALIDATION_SHARE))
        search_seconds = len(variational_classifier.ANGLE_RANGES) * evaluations * loss_seconds(fit_rows)
        seconds = search_seconds + evaluations * loss_seconds(used)
    return {
        "model": variational_classifier.MODEL,
        "circuit": circuit,
        "evaluations_per_iteration": None
        if used is None
        else used * _per_iteration(optimizer, ansatz.num_parameters),
        "iterations": iterations,
        "optimizer_evaluations": evaluations,
        "train_rows": used,
        "test_rows": None if rows is None or train is None else rows - train,
        "evaluation_unit": "circuits (one per training row per evaluation)",
        "seconds": seconds,
        "exact_search_seconds": search_seconds,
    }


def forecaster_windows(params: Mapping[str, Any], rows: int | None) -> tuple[int, int] | None:
    """(training windows, test windows) of a forecaster run on ``rows`` dataset rows: the body's rows
    ``from_index``..``to_index``, split in time order at ``train_test_split``, windows of
    ``recurrent.DEFAULT_WINDOW`` rows (:func:`qmlstudio_worker.ml.recurrent.prepare_windows`; rows removed
    for missing values left out); None without the row count."""
    from qmlstudio_worker.ml.recurrent import DEFAULT_WINDOW

    if rows is None:
        return None
    start = max(1, int(params["from_index"]))
    end = min(rows, int(params.get("to_index") or rows))  # no to_index: to the last row
    selected = max(0, end - start + 1)
    cut = round(selected * float(params["train_test_split"]))
    return max(0, cut - DEFAULT_WINDOW), max(0, selected - cut)


def _forecaster(params: Mapping[str, Any], rows: int | None) -> dict[str, Any]:
    import torch

    from qmlstudio_worker.quantum import hybrid
    from qmlstudio_worker.quantum.statevector import Ansatz as _Ansatz

    qubits = int(params["qubits"])
    epochs = int(params["epochs"])
    ansatz = _Ansatz("RealAmplitudes", qubits, hybrid.DEFAULT_REPS)
    batch = 64
    angles = torch.rand(batch, qubits, dtype=torch.float64)
    weights = torch.zeros(ansatz.num_parameters, dtype=torch.float64, requires_grad=True)

    def step() -> None:
        hybrid.quantum_layer(angles, weights, ansatz).sum().backward()

    per_sample = _timed(step) / batch
    windows = forecaster_windows(params, rows)
    samples = None if windows is None else max(1, windows[0])
    return {
        "model": hybrid.MODEL_NAME,
        "circuit": hybrid.qiskit_circuit(qubits, hybrid.DEFAULT_REPS),
        "evaluations_per_iteration": samples,
        "iterations": epochs,
        "evaluation_unit": "circuits per epoch (one per training window of the selected rows, forward and "
        "one autograd pass back on the exact simulator, as the run trains)",
        "seconds": None if samples is None else per_sample * samples * epochs,
        "windows": windows,
    }


def _qcnn(params: Mapping[str, Any], rows: int | None, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The QCNN's patch circuit (angle encoding, then the ansatz of ``circuit_depth``), run on every patch of
    every training slice each epoch; timed forward and backward as the run trains it. ``inputs`` (the
    handler's declaration): ``qubits``, ``depth``, ``patches`` per slice and the ``ansatz``'s name."""
    import torch

    from qmlstudio_worker.quantum import hybrid

    qubits, depth, patches = int(inputs["qubits"]), int(inputs["depth"]), int(inputs["patches"])
    ansatz = Ansatz(str(inputs["ansatz"]), qubits, depth)
    batch = 64
    angles = torch.rand(batch, qubits, dtype=torch.float64)
    weights = torch.zeros(ansatz.num_parameters, dtype=torch.float64, requires_grad=True)

    def step() -> None:
        hybrid.quantum_layer(angles, weights, ansatz).sum().backward()

    per_circuit = _timed(step) / batch
    per_epoch = None if rows is None else patches * max(1, rows)
    epochs = int(params["epochs"])
    return {
        "model": "QCNN",
        "circuit": hybrid.qiskit_circuit(qubits, depth),
        "evaluations_per_iteration": per_epoch,
        "iterations": epochs,
        "evaluation_unit": f"circuits per epoch ({patches} patches of every slice, forward and one autograd "
        "pass back on the exact simulator)",
        "seconds": None if per_epoch is None else per_circuit * per_epoch * epochs,
    }


def _image_kernel(params: Mapping[str, Any], rows: int | None, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """An image QSVM's fidelity kernel (ZZ feature map of ``n_qubits``, ``circuit_depth`` reps) on the
    training slices (at most the declaration's ``max_kernel_rows``) and the held-out slices (its
    ``validation_share``) against them, timed as the run computes it; the embedding network's epochs
    before it run no circuit and are not counted."""
    from qmlstudio_worker.quantum.kernel_classifier import fidelity_kernel
    from qmlstudio_worker.quantum.statevector import qiskit_feature_map

    qubits, reps = int(params["n_qubits"]), int(params["circuit_depth"])
    sample = np.random.default_rng(0).uniform(0.0, np.pi, (32, qubits))
    per_entry = _timed(lambda: fidelity_kernel(sample, sample, reps, symmetric=True)) / (32 * 32)
    entries = None
    if rows is not None:
        held = round(max(1, rows) * float(inputs["validation_share"]))
        train = min(max(1, rows) - held, int(inputs["max_kernel_rows"]))
        entries = train * train + held * train
    return {
        "model": "QSVM",
        "circuit": qiskit_feature_map(qubits, reps),
        "evaluations_per_iteration": entries,
        "iterations": 1,
        "evaluation_unit": "kernel entries (each training slice against each, then each held-out slice "
        "against them; exact statevector overlaps)",
        "seconds": None if entries is None else per_entry * entries,
    }


def _optimizer_problem(handler: Any, params: Mapping[str, Any], rows: int | None) -> dict[str, Any]:
    """A VQE or QAOA on the QUBO of the problem's handler: its ``circuit_qubits(params, rows)``, and its own
    ``qaoa_circuit(rows, reps)`` where the run builds the QAOA from the QUBO's terms."""
    import itertools

    import torch
    from qiskit.circuit.library import qaoa_ansatz
    from qiskit.quantum_info import SparsePauliOp

    from qmlstudio_worker.quantum.statevector import zero_state
    from qmlstudio_worker.quantum.variational import qaoa_state

    qubits = int(handler.circuit_qubits(params, rows))
    if qubits < 1:
        raise ValueError("the body selects no assets")
    model = str(params.get("model"))
    reps = int(params["circuit_repetition"])
    optimizer = str(params["optimizer_alg"])
    iterations = int(params["optimizer_alg_maxiter"])
    simulable = qubits <= 16
    own_qaoa = getattr(handler, "qaoa_circuit", None)
    if model == "QAOA" and own_qaoa is not None and simulable:
        circuit = own_qaoa(rows, reps)  # the QUBO's own terms, as the run builds it
    if model == "QAOA":
        terms = [("Z", [q], 1.0) for q in range(qubits)] + [
            ("ZZ", [a, b], 1.0) for a, b in itertools.combinations(range(qubits), 2)
        ]
        if own_qaoa is None or not simulable:
            circuit = qaoa_ansatz(SparsePauliOp.from_sparse_list(terms, qubits), reps=reps)
        energy = torch.rand(2**qubits, dtype=torch.float64) if simulable else None
        params_count = 2 * reps

        def evaluate() -> None:
            qaoa_state(energy, [0.1] * reps, [0.2] * reps, qubits)

    else:
        ansatz = Ansatz("RealAmplitudes", qubits, reps)
        circuit = ansatz.qiskit_circuit()
        params_count = ansatz.num_parameters
        weights = torch.zeros(params_count, dtype=torch.float64)

        def evaluate() -> None:
            ansatz.apply(zero_state(qubits, 1, ansatz.complex_amplitudes), weights)

    per_iteration = _per_iteration(optimizer, params_count)
    evaluations = optimizer_evaluations(optimizer, iterations)
    seconds = _timed(evaluate) * evaluations if simulable else None
    return {
        "model": model,
        "circuit": circuit,
        "evaluations_per_iteration": per_iteration,
        "iterations": iterations,
        "optimizer_evaluations": evaluations,
        "evaluation_unit": "circuits (one per energy evaluation)",
        "seconds": seconds,
        "note": None
        if simulable
        else f"{qubits} qubits: above the simulator's limit of 16, the job is refused",
    }


def _noisy_run_seconds(
    found: Mapping[str, Any], noise_model: str, shots: int
) -> tuple[float | None, tuple[int, int] | None]:
    """The run time under a noise model from timed calls of the run's own shape, and the run's (simulator
    calls, circuits) where they are known (:func:`noisy_plan`)."""
    from qmlstudio_worker.quantum import kernel_classifier
    from qmlstudio_worker.quantum.backends import ROWS_PER_CALL

    circuit = found["circuit"]
    if found["model"] == kernel_classifier.MODEL:
        entries = found["evaluations_per_iteration"]
        if entries is None:
            return None, None
        rows_per_call = min(entries, ROWS_PER_CALL)
        per_call, setup = _noisy_seconds_per_call(circuit, noise_model, shots, rows_per_call)
        return setup + per_call * entries / rows_per_call, None
    evaluations = int(found["optimizer_evaluations"])
    plan = noisy_plan(found["model"], evaluations, found.get("train_rows"), found.get("test_rows"))
    if found["model"] in OPTIMISERS:
        assert plan is not None
        per_call, setup = _noisy_seconds_per_call(circuit, noise_model, shots, 1)
        return setup + per_call * plan[0], plan
    train_rows, test_rows = found.get("train_rows"), found.get("test_rows")
    if train_rows is None or test_rows is None or plan is None:
        return None, None
    from qmlstudio_worker.quantum.backends import prepare_noisy

    started = time.perf_counter()
    runner = prepare_noisy(circuit, list(circuit.parameters), noise_model, shots, RUN_SEED)
    setup = time.perf_counter() - started
    # each evaluation's call of the training rows, then the test rows in calls of up to ROWS_PER_CALL (a
    # call of 512 rows costs about a fifth less per row than one of 200: 2.0 vs 2.45 ms at 4 qubits here)
    training = _aer_seconds_per_row(runner, train_rows) * (plan[1] - test_rows)
    testing = _aer_seconds_per_row(runner, test_rows) * test_rows if test_rows else 0.0
    search = float(found.get("exact_search_seconds") or 0.0)
    return setup + search + training + testing, plan


Builder = Callable[[Any, Mapping[str, Any], "int | None", bool, Mapping[str, Any]], dict[str, Any]]

#: What each model family's run builds, by family (the keys a handler's ``ESTIMATE_MODELS`` maps to); each
#: takes (handler, body, rows, measured, the declaration's inputs) and returns the circuit, its
#: evaluations, iterations and time.
FAMILIES: dict[str, Builder] = {
    "Variational Quantum Classifier": lambda _h, params, rows, measured, _i: _binary_classifier(
        params, rows, measured
    ),
    "Quantum Support Vector Classifier": lambda _h, params, rows, measured, _i: _binary_classifier(
        params, rows, measured
    ),
    "Hybrid quantum neural network": lambda _h, params, rows, _m, _i: _forecaster(params, rows),
    "VQE": lambda handler, params, rows, _m, _i: _optimizer_problem(handler, params, rows),
    "QAOA": lambda handler, params, rows, _m, _i: _optimizer_problem(handler, params, rows),
    "QCNN": lambda _h, params, rows, _m, inputs: _qcnn(params, rows, inputs),
    "QSVM": lambda _h, params, rows, _m, inputs: _image_kernel(params, rows, inputs),
}


#: The per-run totals a job with repeats (:mod:`.repeats`: the same handler once per seed) spends ``repeats``
#: times; the counts per iteration, the circuit's size and the optimizer's iterations stay per run.
RUN_TOTALS = (
    "circuit_evaluations",
    "total_shots",
    "estimated_seconds",
    "optimizer_evaluations",
    "simulator_calls",
    "noisy_circuits_run",
    "noisy_training_rows",
)


def all_repeats(per_run: Mapping[str, Any], repeats: int) -> dict[str, Any]:
    """The run totals of ``per_run`` for ``repeats`` runs (None stays None: not counted or not timed): the
    one place the estimate multiplies by the extension's ``repeats``."""
    totals: dict[str, Any] = {}
    for key in RUN_TOTALS:
        value = per_run.get(key)
        if value is None:
            totals[key] = None
        elif key == "estimated_seconds":
            totals[key] = round(float(value) * repeats, 3)
        else:
            totals[key] = int(value) * repeats
    return totals


def estimate(
    kind: str,
    params: Mapping[str, Any],
    rows: int | None = None,
    noise_model: str | None = None,
    repeats: int | None = None,
) -> dict[str, Any]:
    """The resource estimate of a job body (and the extension's ``noise_model`` and ``repeats``); see the
    module docstring. The figures are per run; ``all_repeats`` holds the run totals times ``repeats``.
    Raises ValueError for a body that has no quantum circuit (a Classical model), a problem without a
    quantum model, an unknown noise model or a device without a snapshot, and JobValidationError for
    repeats outside 1..10."""
    from qmlstudio_worker.jobs.repeats import repeat_count

    count = repeat_count({"repeats": repeats})
    per_run = _estimate_one_run(kind, params, rows, noise_model)
    return {**per_run, "repeats": count, "all_repeats": all_repeats(per_run, count)}


def _estimate_one_run(
    kind: str, params: Mapping[str, Any], rows: int | None, noise_model: str | None
) -> dict[str, Any]:
    from qmlstudio_worker.jobs.support import quantum_shots

    if PROBLEM_ID.fullmatch(kind):  # the body as a job would run it: its problem file's defaults filled in
        params = ProblemSchemas(resolve_schemas_dir()).fill_defaults(kind, params, optional=True)
    model = model_name(params)
    handler = problem_handler(kind)
    family, inputs = quantum_family(handler, kind, params, model)
    measured = params.get("use_quantum_simulator") is False or noise_model not in (None, "None")
    found = FAMILIES[family](handler, params, rows, measured, inputs)
    where, name, snapshot = _target(params, noise_model)
    backend = params.get("quantum_device_backend")
    shots = quantum_shots(params, name if where == "noise_model" else None, device_ok=True)
    per_iteration = found["evaluations_per_iteration"]
    evaluations = None if per_iteration is None else per_iteration * found["iterations"]
    seconds = found["seconds"]
    note = found.get("note")
    simulator_calls: int | None = None
    circuits_run: int | None = None
    noisy_training_rows: int | None = None
    aer_shots: int | None = -1  # -1: the shots of every circuit evaluation
    if where == "ideal":
        # The ideal simulators apply the circuit in u and cx gates: the same summary the run logs.
        summary = {**circuit_summary(found["circuit"]), "transpiled_for": IDEAL_GATES}
        simulation = "exact statevector" if shots is None else f"{shots} shots per circuit"
    else:
        assert name is not None
        assert shots is not None  # a noise model or a device always samples
        snapshot_of = (
            "the noise model's device snapshot" if where == "noise_model" else "its offline snapshot"
        )
        summary = target_summary(found["circuit"], snapshot, snapshot_of)
        simulation = f"{shots} shots per circuit on {name}"
        seconds = None
        noisy_limit = getattr(handler, "NOISY_QUBIT_LIMIT", None)
        above_noisy_limit = noisy_limit is not None and found["circuit"].num_qubits > noisy_limit
        trains_under_noise = found["model"] in TRAINED_UNDER_NOISE or (
            found["model"] in NOISY_PATH_MODELS
            and found["model"] != "Quantum Support Vector Classifier"
            and params.get("optimizer_alg") == "ADAM"
        )
        if where == "noise_model" and trains_under_noise and not above_noisy_limit:
            trained = _noisy_training(found, name, shots)
            seconds, note, plan = trained["seconds"], trained["note"], trained["plan"]
            per_iteration = None if plan is None else plan["per_iteration"]
            evaluations = None if plan is None else plan["density_rows"]
            noisy_training_rows = evaluations
            aer_shots = None if plan is None else plan["aer_circuits"] * shots
            if plan is not None:
                simulator_calls, circuits_run = plan["aer_calls"], plan["aer_circuits"]
            active = trained["active_qubits"]
            hybrid_run = found["model"] in TRAINED_UNDER_NOISE
            unit = (
                "noisy density-matrix rows per epoch (each training window but the held-out last fifth "
                "forward and backward, then the loss of every training, test and held-out window; the "
                "held-out windows once more before the first epoch)"
                if hybrid_run
                else "noisy density-matrix rows per ADAM step (forward and backward)"
            )
            found = {**found, "evaluation_unit": unit}
            afterwards = (
                "test predictions"
                if hybrid_run
                else "test rows scored"
                if found["model"] not in OPTIMISERS
                else "final circuit measured"
            )
            simulation = (
                f"{shots} shots per circuit on {name}; noisy training refused (see the note)"
                if note is not None
                else f"trained on the exact noisy channel of {name} (torch density matrix"
                + (f" of {active} active qubits" if active is not None else "")
                + f", autograd gradients, no shots); {afterwards} with {shots} shots per circuit under the "
                f"{name} noise (Aer)"
            )
        elif found["model"] not in NOISY_PATH_MODELS:
            note = f"The {found['model']} runs on the ideal simulator only: a job on {name} is refused."
        elif where == "device":
            note = "On a real device the run time depends on the provider's queue: it is not estimated."
        elif above_noisy_limit:
            note = handler.noisy_refusal(found["circuit"].num_qubits, name, None, evaluations or 0)
        else:
            seconds, plan = _noisy_run_seconds(found, name, shots)
            if plan is not None:
                simulator_calls, circuits_run = plan
            simulation = f"{shots} shots per circuit under the {name} noise (Aer, the run's method)"
    return {
        "problem": kind,
        "model": found["model"],
        "backend": backend,
        "noise_model": name if where == "noise_model" else None,
        "device": name if where == "device" else None,
        **{k: summary[k] for k in ("qubits", "parameters", "depth", "two_qubit_gates", "gate_counts")},
        "transpiled_for": summary["transpiled_for"],
        "evaluations_per_iteration": per_iteration,
        "evaluation_unit": found["evaluation_unit"],
        "iterations": found["iterations"],
        "circuit_evaluations": evaluations,
        "shots_per_evaluation": shots,
        "total_shots": aer_shots
        if aer_shots != -1
        else None
        if shots is None or evaluations is None
        else shots * evaluations,
        "simulation": simulation,
        "estimated_seconds": None if seconds is None else round(float(seconds), 3),
        "optimizer_evaluations": found.get("optimizer_evaluations"),
        "simulator_calls": simulator_calls,
        "noisy_circuits_run": circuits_run,
        "noisy_training_rows": noisy_training_rows,
        "rows": rows,
        "note": note,
    }
