"""Warm worker: ``python -m qmlstudio_worker serve --socket PATH``.

A preloaded parent: it imports the heavy libraries once (numpy, pandas, scikit-learn, torch, qiskit,
qiskit_aer, and the worker's own handler modules), then listens
on a Unix socket and forks one child per connection, so a job starts without paying the imports again
while every job keeps a process of its own (stop and crash isolation as with the cold CLI).

Parent -> server, on the parent's stdout (one JSON line): ``{"serve": "ready", "pid", "seconds",
"preloaded": [...], "skipped": {module: error}}`` once the imports are done and the socket listens.
The parent exits when its stdin reaches end of file (the server that started it has gone) or on SIGTERM.

Per connection the server writes one request line::

    {"command": "run" | "infer" | "forecast" | "estimate" | "devices" | "predict" | "mat-inspect",
     "args": [...], "input": {...}, "stderr_path": "/...", "env": {...}}

``env`` (optional) is the child's whole environment, as a fresh process for that command would get it: one
parent can then serve launchers whose settings differ (another data directory or file store). Without it
the child keeps the parent's environment.

and reads back, on the same connection:

1. ``{"qmlstudio_serve": {"pid": N}}`` from the parent, before anything else: the child's process id,
   which is also its process group id (the child calls ``os.setsid()`` before this line is sent, so the
   server can signal the whole group at once);
2. the child's protocol lines, exactly what ``python -m qmlstudio_worker <command> <args>`` would print
   with ``input`` on stdin (the child runs ``cli.main``: same code path, nothing duplicated); its stderr
   goes to ``stderr_path``;
3. after the child has been reaped (and anything left in its process group killed), a newline and then
   ``{"qmlstudio_serve": {"exit": {"code": int | null, "signal": "SIGTERM" | ... | null}}}`` from the
   parent, and the connection closes. The leading newline ends a line the child may have left unfinished
   when it was killed; readers skip empty lines.

A refused request gets ``{"qmlstudio_serve": {"error": "..."}}`` and the connection closes.

The parent stays single-threaded (a selector loop; SIGCHLD arrives through the signal wakeup fd), so a
fork never copies a lock held by another thread. Importing torch does not start its thread pools; only
running an operation would, and the parent runs none: a predict request's model is built on the meta
device and given its saved tensors (no computation) before the fork, for its child to inherit.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import pkgutil
import selectors
import signal
import socket
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, TextIO

from qmlstudio_worker.file_store import file_store
from qmlstudio_worker.protocol import EXIT_OK, EXIT_RUNTIME_ERROR

# Third-party libraries the handlers use, imported once by the parent; a missing one is reported in the
# ready line, not fatal. qiskit_machine_learning is not here: only the tests and bench:quantum use it (as the
# reference the fast paths are checked against), so the product does not pay its 2.4 s import.
PRELOAD_MODULES: tuple[str, ...] = (
    "numpy",
    "pandas",
    "scipy",
    "scipy.optimize",
    "sklearn",
    "sklearn.ensemble",
    "sklearn.linear_model",
    "sklearn.metrics",
    "sklearn.model_selection",
    "sklearn.neural_network",
    "sklearn.preprocessing",
    "sklearn.svm",
    "torch",
    "torch.nn",
    "torch.optim",
    "qiskit",
    "qiskit.circuit.library",
    "qiskit_aer",
    "qiskit_aer.primitives",
    # Brain tumor datasets and images (mat-inspect, training, prediction).
    "h5py",
    "PIL.Image",
)
# The worker's own packages whose modules are preloaded too (handlers, models, quantum solvers).
PRELOAD_PACKAGES: tuple[str, ...] = (
    "qmlstudio_worker.jobs",
    "qmlstudio_worker.problems",
    "qmlstudio_worker.ml",
    "qmlstudio_worker.quantum",
)
COMMANDS = ("run", "infer", "forecast", "estimate", "devices", "predict", "mat-inspect")
MAX_REQUEST_BYTES = 64 * 1024 * 1024
REQUEST_TIMEOUT_SECONDS = 10.0


@dataclass
class Preload:
    loaded: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def preload(
    modules: tuple[str, ...] = PRELOAD_MODULES, packages: tuple[str, ...] = PRELOAD_PACKAGES
) -> Preload:
    """Import ``modules`` and every module of ``packages``; failures are recorded, never raised."""
    report = Preload()

    def load(name: str) -> None:
        try:
            importlib.import_module(name)
            report.loaded.append(name)
        except Exception as exc:  # an optional library missing, or a module mid-edit: the job imports it then
            report.skipped[name] = f"{type(exc).__name__}: {exc}"

    for name in modules:
        load(name)
    for package in packages:
        try:
            module = importlib.import_module(package)
        except Exception as exc:
            report.skipped[package] = f"{type(exc).__name__}: {exc}"
            continue
        report.loaded.append(package)
        for info in pkgutil.walk_packages(getattr(module, "__path__", []), prefix=f"{package}."):
            load(info.name)
    return report


def _serve_line(message: dict[str, Any]) -> bytes:
    return (json.dumps({"qmlstudio_serve": message}, separators=(",", ":")) + "\n").encode("utf-8")


def _exit_info(status: int) -> dict[str, Any]:
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        try:
            name: str | None = signal.Signals(-code).name
        except ValueError:
            name = f"SIG{-code}"
        return {"code": None, "signal": name}
    return {"code": code, "signal": None}


class BadRequest(Exception):
    pass


@dataclass
class Request:
    argv: list[str]
    stdin_text: str
    stderr_path: str | None
    env: dict[str, str] | None


def parse_request(raw: bytes) -> Request:
    """The argv for cli.main, stdin text, stderr path and environment of one request line; BadRequest when
    malformed."""
    try:
        request = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRequest(f"request is not JSON: {exc}") from exc
    if not isinstance(request, dict):
        raise BadRequest("request is not a JSON object")
    command = request.get("command")
    if command not in COMMANDS:
        raise BadRequest(f"command must be one of {', '.join(COMMANDS)} (got {command!r})")
    args = request.get("args", [])
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise BadRequest("args must be a list of strings")
    stderr_path = request.get("stderr_path")
    if stderr_path is not None and not isinstance(stderr_path, str):
        raise BadRequest("stderr_path must be a string")
    env = request.get("env")
    if env is not None and (
        not isinstance(env, dict) or not all(isinstance(value, str) for value in env.values())
    ):
        raise BadRequest("env must be an object of strings")
    stdin_text = "" if "input" not in request else json.dumps(request["input"])
    return Request([command, *args], stdin_text, stderr_path, env)


def _read_request(conn: socket.socket) -> bytes:
    conn.settimeout(REQUEST_TIMEOUT_SECONDS)
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            raise BadRequest("connection closed before the request line ended")
        newline = chunk.find(b"\n")
        if newline >= 0:
            chunks.append(chunk[:newline])
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST_BYTES:
            raise BadRequest(f"request line longer than {MAX_REQUEST_BYTES} bytes")
    conn.settimeout(None)
    return b"".join(chunks)


def _preload_prediction_model(stdin_text: str) -> None:
    """A predict request's model, loaded here without any torch computation (bio/predict.py), so its child
    and the next ones inherit it instead of loading it again."""
    try:
        from qmlstudio_worker.problems.brain_tumor.predict import preload_bundle

        preload_bundle(stdin_text)
    except Exception:  # the child loads the bundle itself and reports what is wrong with it
        return


def _noop_handler(_signum: int, _frame: object) -> None:
    """SIGCHLD needs a Python-level handler for the wakeup fd to be written; the loop does the work."""


class WarmParent:
    def __init__(self, out: TextIO, socket_path: str) -> None:
        self.out = out
        self.socket_path = socket_path
        self.children: dict[int, socket.socket] = {}
        self.selector = selectors.DefaultSelector()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(socket_path)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(socket_path)
        self.listener.listen(64)
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, _noop_handler)
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")
        self.selector.register(0, selectors.EVENT_READ, "stdin")

    def loop(self) -> None:
        running = True
        while running:
            for key, _events in self.selector.select():
                if key.data == "accept":
                    self.accept()
                elif key.data == "wake":
                    with contextlib.suppress(BlockingIOError):
                        while os.read(self.wake_r, 4096):
                            pass
                elif key.data == "stdin" and not os.read(0, 4096):
                    running = False  # the server that started us has gone
            self.reap()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket_path)

    def accept(self) -> None:
        try:
            conn, _address = self.listener.accept()
        except OSError:
            return
        try:
            request = parse_request(_read_request(conn))
        except (BadRequest, OSError) as exc:
            with contextlib.suppress(OSError):
                conn.sendall(_serve_line({"error": str(exc)}))
            conn.close()
            return
        if request.argv[0] == "predict":
            _preload_prediction_model(request.stdin_text)
        self.fork(conn, request)

    def fork(self, conn: socket.socket, request: Request) -> None:
        # The child acknowledges its new session before the server hears its pid (so signalling the
        # group works at once), and waits for the pid line to be sent before it writes anything.
        gate_parent, gate_child = socket.socketpair()
        sys.stdout.flush()
        sys.stderr.flush()
        self.out.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the forked child (the tests see it through the socket)
            gate_parent.close()
            self._run_child(conn, gate_child, request)
        gate_child.close()
        try:
            gate_parent.recv(1)  # the child has called setsid()
            conn.sendall(_serve_line({"pid": pid}))
            gate_parent.sendall(b"g")
        except OSError:
            pass  # the server went away; the child's writes fail and it ends, then is reaped
        finally:
            gate_parent.close()
        self.children[pid] = conn

    def _run_child(self, conn: socket.socket, gate: socket.socket, request: Request) -> None:
        code = EXIT_RUNTIME_ERROR
        try:
            os.setsid()
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            # Nothing of the parent's stays open here: not the listener, the wakeup pipe, the parent's
            # protocol stream, nor the connections of other jobs (their readers must see EOF when
            # those jobs end, not when this one does).
            self.selector.close()
            self.listener.close()
            os.close(self.wake_r)
            os.close(self.wake_w)
            for other in self.children.values():
                other.close()
            os.close(self.out.fileno())
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            os.close(devnull)
            err = os.open(request.stderr_path or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(err, 2)
            os.close(err)
            os.dup2(conn.fileno(), 1)
            conn.close()
            sys.stdin = io.StringIO(request.stdin_text)
            if request.env is not None:
                os.environ.clear()
                os.environ.update(request.env)
                file_store.cache_clear()  # the parent's store was built from the parent's settings
            gate.sendall(b"a")
            if gate.recv(1) != b"g":  # the parent ended before the server heard of this child: run nothing
                os._exit(EXIT_RUNTIME_ERROR)
            gate.close()
            from qmlstudio_worker import cli

            code = cli.main(request.argv)
        except SystemExit as exc:  # argparse refusing the arguments
            code = exc.code if isinstance(exc.code, int) else EXIT_RUNTIME_ERROR
        except BaseException:
            traceback.print_exc()
        finally:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            os._exit(code)

    def reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            # Whatever the job started in its group ends with it (as the cold launcher does).
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            if conn is None:
                continue
            with contextlib.suppress(OSError):
                conn.sendall(b"\n" + _serve_line({"exit": _exit_info(status)}))
            conn.close()


def serve(out: TextIO, socket_path: str) -> int:
    """Preload, listen on ``socket_path``, announce readiness on ``out``, fork a child per request."""
    started = time.monotonic()
    report = preload()
    # The file store's S3 client (boto3 and its service model: over a second) is built once here,
    # before any connection exists, so each forked child has it at once.
    try:
        file_store()
        report.loaded.append("file_store")
    except Exception as exc:  # bad settings: each job reports them itself
        report.skipped["file_store"] = f"{type(exc).__name__}: {exc}"
    parent = WarmParent(out, socket_path)
    try:
        ready = {
            "serve": "ready",
            "pid": os.getpid(),
            "seconds": round(time.monotonic() - started, 3),
            "preloaded": report.loaded,
            "skipped": report.skipped,
        }
        out.write(json.dumps(ready, separators=(",", ":")) + "\n")
        out.flush()
        parent.loop()
    finally:
        parent.close()
    return EXIT_OK
