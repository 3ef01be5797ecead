"""Job handlers, one module per job kind (registered in ``qmlstudio_worker.registry``).

Each handler module defines ``run(params: dict, ctx: JobContext) -> dict``: it reports through
``ctx.emitter`` (progress, log, metric, chart, artifact lines) and returns the result data, which the
runner emits as the single ``result`` line. Heavy libraries (qiskit, torch, ...) are imported inside
``run`` so that validating a job stays fast.
"""
