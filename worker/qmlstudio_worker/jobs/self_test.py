"""The "self-test" job: the quantum self-test diagnostic.

Builds a 2-qubit Bell circuit, transpiles it for Qiskit Aer's AerSimulator and samples it ``shots``
times. A healthy stack measures only "00" and "11", about half each. Params (see
``schemas/self-test.params.schema.json``): ``shots`` (1..100000, default 1024), ``seed`` (optional, for
reproducible counts) and ``delay_seconds`` (0..600, default 0: a sleep reported as progress steps, used
to exercise stop and timeout).
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.versions import installed_versions

OUTCOMES = ("00", "01", "10", "11")
DELAY_START_PERCENT = 5
DELAY_END_PERCENT = 25
DELAY_STEP_SECONDS = 1.0


def _sleep_with_progress(ctx: JobContext, delay_seconds: float) -> None:
    """Sleep ``delay_seconds`` in steps of at most one second, one progress line per step."""
    if delay_seconds <= 0:
        return
    steps = max(1, math.ceil(delay_seconds / DELAY_STEP_SECONDS))
    deadline = time.monotonic() + delay_seconds
    span = DELAY_END_PERCENT - DELAY_START_PERCENT
    for step in range(1, steps + 1):
        remaining = deadline - time.monotonic()
        if remaining > 0:
            time.sleep(min(DELAY_STEP_SECONDS, remaining))
        percent = DELAY_START_PERCENT + round(span * step / steps)
        ctx.emitter.progress(percent, f"waiting ({step}/{steps})")


def run(params: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
    shots: int = params["shots"]
    seed: int | None = params.get("seed")
    delay_seconds: float = params["delay_seconds"]
    emit = ctx.emitter
    started = time.monotonic()

    emit.progress(DELAY_START_PERCENT, "starting")
    versions = installed_versions()
    emit.log(
        "versions: "
        + ", ".join(f"{name} {version}" for name, version in versions.items())
        + f"; job {ctx.job_id}: {shots} shots, seed {seed if seed is not None else 'none'}"
    )
    _sleep_with_progress(ctx, delay_seconds)

    from qiskit import QuantumCircuit, transpile
    from qiskit_aer import AerSimulator

    circuit = QuantumCircuit(2, 2, name="bell")
    circuit.h(0)
    circuit.cx(0, 1)
    circuit.measure([0, 1], [0, 1])
    emit.progress(30, "circuit built")

    backend = AerSimulator()
    emit.log(f"backend: {backend.name}")
    compiled = transpile(circuit, backend, seed_transpiler=seed)
    emit.progress(60, "transpiled")

    run_options: dict[str, Any] = {"shots": shots}
    if seed is not None:
        run_options["seed_simulator"] = seed
    result = backend.run(compiled, **run_options).result()
    if not result.success:
        raise RuntimeError(f"simulation failed: {result.status}")
    raw_counts: dict[str, int] = result.get_counts(compiled)
    counts = {outcome: int(raw_counts[outcome]) for outcome in OUTCOMES if raw_counts.get(outcome)}
    emit.progress(90, "simulated")

    correlated = counts.get("00", 0) + counts.get("11", 0)
    emit.metric("bell_correlation", correlated / shots)
    emit.metric("p00", counts.get("00", 0) / shots)
    emit.metric("p11", counts.get("11", 0) / shots)
    emit.chart(
        "bar",
        title="Bell state measurement counts",
        label="counts",
        series=[{"name": "counts", "data": [counts.get(outcome, 0) for outcome in OUTCOMES]}],
        categories=list(OUTCOMES),
    )
    if correlated != shots:
        emit.log(f"{shots - correlated} of {shots} shots gave uncorrelated outcomes", level="warning")

    data: dict[str, Any] = {
        "counts": counts,
        "shots": shots,
        "seed": seed,
        "backend": backend.name,
        "versions": versions,
        "duration_seconds": round(time.monotonic() - started, 3),
    }
    out_dir = ctx.artifact_dir()
    if out_dir is not None:
        path = out_dir / "self-test-result.json"
        path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        emit.artifact("self-test-result.json", str(path), "application/json")

    emit.progress(100, "done")
    return data
