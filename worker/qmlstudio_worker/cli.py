"""Command line: ``python -m qmlstudio_worker {run,health,kinds}``.

- ``run``:    read one JSON job envelope on stdin (until EOF), write protocol lines on stdout.
              ``--schemas-dir DIR`` names the schemas directory holding the problem files whose
              ``job.bodySchema`` validates the job body (default: ``$QMLSTUDIO_SCHEMAS_DIR``, else
              ``schemas/`` beside the worker directory).
- ``health``: import qiskit, qiskit_aer and torch; print one line {"ok": true, "versions": {...}}
              (or {"ok": false, "error": "..."} and exit 1).
- ``kinds``:  print one line {"kinds": {kind: {"description", "params_schema"}}} for the server.
- ``serve``:  warm worker: preload the libraries, then fork one child per request on the Unix socket
              ``--socket PATH``, each running ``run``/``infer`` as above (see ``serve.py``).
- ``devices``: read {"token"} on stdin; write one line: the IBM devices it may use (name, qubits, status,
              pending jobs) or an error line (``qmlstudio_worker/quantum/devices.py``).
- ``infer``:  read one inference request {problem, model_dir, dataset: {path}, features} on stdin; write one
              result line {actual, predicted, rows} or an error line (``qmlstudio_worker/inference.py``).
- ``predict``: read {image_path, bundle_path, file_name} on stdin; write one result line (the tumor class and
              its probabilities) or an error line with the spec's message (``bio/predict.py``).
- ``mat-inspect``: read {path, index?, rows?} on stdin; write one result line describing a brain tumor .mat
              dataset (counts, first rows, one slice's thumbnail, border and mask) or an error line
              (``bio/mat_inspect.py``).

Stdout carries protocol JSON only: before anything else runs, the real stdout is moved to a private file
descriptor and file descriptor 1 (and ``sys.stdout``) is pointed at stderr, so a library that prints,
from Python or from native code, cannot corrupt the stream.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TextIO

from qmlstudio_worker import __version__
from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.jobs.runner import install_signal_handlers, run_job
from qmlstudio_worker.problem_schemas import ProblemSchemas, resolve_schemas_dir
from qmlstudio_worker.protocol import EXIT_OK, EXIT_RUNTIME_ERROR, EXIT_VALIDATION_ERROR, Emitter, encode_line

Command = Callable[[TextIO, argparse.Namespace], int]


def claim_stdout() -> TextIO:
    """Return a private text stream on the process's real stdout and send everything else to stderr."""
    sys.stdout.flush()
    private_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(private_fd, "w", encoding="utf-8", newline="\n")


def _command_run(out: TextIO, args: argparse.Namespace) -> int:
    job_text = sys.stdin.read()
    problems = ProblemSchemas(resolve_schemas_dir(args.schemas_dir))
    return run_job(job_text, Emitter(out), problems=problems)


def _command_health(out: TextIO, _args: argparse.Namespace) -> int:
    try:
        import qiskit
        import qiskit_aer
        import torch

        from qmlstudio_worker.versions import installed_versions

        versions = installed_versions()
        versions.update(
            {"qiskit": qiskit.__version__, "qiskit_aer": qiskit_aer.__version__, "torch": torch.__version__}
        )
        report: dict[str, object] = {"ok": True, "versions": versions}
        code = EXIT_OK
    except Exception as exc:  # any import failure is the answer, not a crash
        report = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        code = EXIT_RUNTIME_ERROR
    out.write(encode_line(report))
    out.flush()
    return code


def _command_kinds(out: TextIO, _args: argparse.Namespace) -> int:
    from qmlstudio_worker.jobs.kinds import JOB_KINDS, problem_kind

    problems = ProblemSchemas(resolve_schemas_dir())
    found = dict(JOB_KINDS)
    for path in sorted((problems.schemas_dir / "problems").glob("*.json")):
        if (job_kind := problem_kind(path.stem, problems)) is not None:
            found[path.stem] = job_kind
    kinds = {
        name: {
            "description": job_kind.description,
            "params_schema": job_kind.params_schema
            if job_kind.params_schema_file is not None
            else {"$ref": f"problems/{name}.json#/job/bodySchema"},
        }
        for name, job_kind in sorted(found.items())
    }
    out.write(json.dumps({"kinds": kinds}, separators=(",", ":")) + "\n")
    out.flush()
    return EXIT_OK


def _command_infer(out: TextIO, _args: argparse.Namespace) -> int:
    from qmlstudio_worker.jobs.inference import run_inference

    return run_inference(sys.stdin.read(), Emitter(out))


def _command_mat_inspect(out: TextIO, _args: argparse.Namespace) -> int:
    from qmlstudio_worker.problems.brain_tumor.mat_inspect import run_mat_inspect

    return run_mat_inspect(sys.stdin.read(), Emitter(out))


def _command_predict(out: TextIO, _args: argparse.Namespace) -> int:
    from qmlstudio_worker.problems.brain_tumor.predict import run_prediction

    return run_prediction(sys.stdin.read(), Emitter(out))


def _command_estimate(out: TextIO, _args: argparse.Namespace) -> int:
    """The resource estimate of {"kind", "params", "rows"?, "noise_model"?, "repeats"?} on stdin as one
    protocol line: a result, or a validation error for a body without a circuit or repeats outside 1..10."""
    from qmlstudio_worker.jobs.resource_estimate import estimate

    emit = Emitter(out)
    try:
        request = json.loads(sys.stdin.read())
        rows = request.get("rows")
        found = estimate(
            str(request["kind"]),
            dict(request["params"]),
            int(rows) if rows else None,
            noise_model=request.get("noise_model"),
            repeats=request.get("repeats"),
        )
    except JobValidationError as exc:
        emit.error(str(exc), kind="validation", field="/repeats")  # the request's field, not the envelope's
        return EXIT_VALIDATION_ERROR
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        text = str(exc)
        emit.error(text[:1].upper() + text[1:], kind="validation", field="/params")
        return EXIT_VALIDATION_ERROR
    emit.result(found)
    return EXIT_OK


def _command_devices(out: TextIO, _args: argparse.Namespace) -> int:
    """The IBM devices of {"token"} on stdin (the token never goes on the command line) as one protocol line:
    a result {devices: [...]}, or a validation error: field "/token" when there is no token or IBM Quantum
    rejects it, no field when IBM Quantum cannot be reached."""
    from qmlstudio_worker.quantum.devices import DeviceError, list_devices

    emit = Emitter(out)
    try:
        request = json.loads(sys.stdin.read())
        token = request.get("token") if isinstance(request, dict) else None
        found = list_devices(token if isinstance(token, str) else None)
    except DeviceError as exc:
        emit.error(exc.message, kind="validation", field=exc.field)
        return EXIT_VALIDATION_ERROR
    emit.result({"devices": found})
    return EXIT_OK


def _command_forecast(out: TextIO, _args: argparse.Namespace) -> int:
    from qmlstudio_worker.jobs.rolling_forecast import run_forecast

    return run_forecast(sys.stdin.read(), Emitter(out))


def _command_serve(out: TextIO, args: argparse.Namespace) -> int:
    from qmlstudio_worker.serve import serve

    return serve(out, args.socket)


COMMANDS: dict[str, Command] = {
    "run": _command_run,
    "health": _command_health,
    "kinds": _command_kinds,
    "infer": _command_infer,
    "forecast": _command_forecast,
    "predict": _command_predict,
    "mat-inspect": _command_mat_inspect,
    "serve": _command_serve,
    "estimate": _command_estimate,
    "devices": _command_devices,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m qmlstudio_worker", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--version", action="version", version=f"qmlstudio_worker {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run one job read as JSON from stdin; protocol lines on stdout")
    run.add_argument(
        "--schemas-dir",
        metavar="DIR",
        help="schemas directory with problems/<id>.json and defs.json "
        "(default: $QMLSTUDIO_SCHEMAS_DIR, else schemas/ beside the worker directory)",
    )
    sub.add_parser("health", help="check that qiskit, qiskit_aer and torch import; one JSON line")
    sub.add_parser("kinds", help="list the job kinds and their params schemas as one JSON line")
    serve = sub.add_parser("serve", help="warm worker: preload, then fork a child per request on a socket")
    serve.add_argument("--socket", metavar="PATH", required=True, help="Unix socket path to listen on")
    sub.add_parser("infer", help="apply a trained model to a CSV (request as JSON on stdin); one JSON line")
    sub.add_parser(
        "forecast",
        help="forecast a saved forecaster step by step ({model_dir, dataset, steps}); one JSON line",
    )
    sub.add_parser("predict", help="the tumor class of one MRI image (request JSON on stdin); one JSON line")
    sub.add_parser("mat-inspect", help="describe a brain tumor .mat dataset ({path} on stdin); one JSON line")
    sub.add_parser(
        "estimate",
        help="resource estimate of a quantum job body ({kind, params, rows} on stdin); one JSON line",
    )
    sub.add_parser("devices", help="the IBM devices a token may use ({token} on stdin); one JSON line")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    install_signal_handlers()
    out = claim_stdout()
    try:
        return COMMANDS[args.command](out, args)
    finally:
        out.close()
