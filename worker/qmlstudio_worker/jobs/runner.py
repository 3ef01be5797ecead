"""Running one job: envelope text in, protocol lines out, exit code back."""

from __future__ import annotations

import signal
import sys
import traceback
from collections.abc import Callable
from typing import Any

from qmlstudio_worker.errors import JobValidationError
from qmlstudio_worker.file_store import file_store, with_local_dataset
from qmlstudio_worker.jobs.context import JobContext
from qmlstudio_worker.jobs.envelope import parse_job_text, validate_job
from qmlstudio_worker.jobs.kinds import JobKind
from qmlstudio_worker.jobs.repeats import run_repeated
from qmlstudio_worker.problem_schemas import ProblemSchemas, SchemaFileError
from qmlstudio_worker.protocol import EXIT_OK, EXIT_RUNTIME_ERROR, EXIT_VALIDATION_ERROR, Emitter

EXIT_INTERRUPTED = 130


def install_signal_handlers() -> None:
    """Make the process die at once on SIGTERM, and quietly when the reader of stdout goes away.

    The server stops a job (user's stop, timeout) by sending SIGTERM and records the outcome itself, so
    the worker has nothing to report: the kernel's default action ends the process immediately, even in
    the middle of a long native computation (Aer, torch) where a Python-level handler would only run
    once control returns to the interpreter. Resetting to SIG_DFL also undoes an inherited SIG_IGN.
    Every protocol line is flushed as it is written, so nothing buffered is lost; at most a last line
    being written at that instant is cut short (readers ignore an unterminated final line).
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def run_job(
    job_text: str,
    emitter: Emitter,
    registry: dict[str, JobKind] | None = None,
    problems: ProblemSchemas | None = None,
) -> int:
    """Validate and run one job, reporting through ``emitter``; return the process exit code.

    Exactly one final line is written: ``result`` (exit 0) or ``error`` (kind "validation" -> exit 2,
    kind "runtime" -> exit 1; a missing or broken schema file is the installation's fault, so runtime).
    Tracebacks go to stderr, never to the protocol stream.
    """
    try:
        job = validate_job(parse_job_text(job_text), registry, problems)
    except JobValidationError as exc:
        emitter.error(exc.message, kind="validation", field=exc.field)
        return EXIT_VALIDATION_ERROR
    except SchemaFileError as exc:
        emitter.error(f"schema files: {exc}", kind="runtime")
        return EXIT_RUNTIME_ERROR

    ctx = JobContext(job_id=job.job_id, emitter=emitter, output_dir=job.output_dir, extension=job.extension)

    def produce() -> dict[str, Any]:
        # The inputs come from the file store (this worker may be on another machine than the server's
        # disk) and the outputs go back to it before the result line, so a Completed model is readable.
        ctx.extension = with_local_dataset(job.extension)
        handler = job.kind.load_handler()
        data = run_repeated(handler, job.params, ctx)
        if not isinstance(data, dict):
            raise TypeError(f"handler for {job.kind.kind!r} returned {type(data).__name__}, not a dict")
        if job.output_dir is not None:
            file_store().publish_folder(job.output_dir)
        return data

    return report_outcome(produce, emitter)


def report_outcome(produce: Callable[[], dict[str, Any]], emitter: Emitter) -> int:
    """Call ``produce`` and write its one final line: ``result`` with what it returns (exit 0), or
    ``error`` (a :class:`JobValidationError` -> kind "validation", exit 2; any other exception -> kind
    "runtime", exit 1, traceback on stderr). Ctrl-C exits 130 with no protocol line."""
    try:
        emitter.result(produce())
    except JobValidationError as exc:
        emitter.error(exc.message, kind="validation", field=exc.field)
        return EXIT_VALIDATION_ERROR
    except KeyboardInterrupt:
        print("qmlstudio_worker: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        traceback.print_exc(file=sys.stderr)
        emitter.error(f"{type(exc).__name__}: {exc}", kind="runtime")
        return EXIT_RUNTIME_ERROR
    return EXIT_OK
