"""A stand-in IBM Quantum Platform for tests: one local HTTP server answering the REST calls that
qiskit-ibm-runtime 0.51's QiskitRuntimeService (channel ``ibm_quantum_platform``) makes, so the worker's
device code runs against the real client instead of local testing mode.

How the client is pointed at it (read from the 0.51 sources): the account URL ``http://cloud.ibm.com``
makes the client derive ``http://iam.cloud.ibm.com`` (token exchange, accounts/utils.get_iam_api_url; the
runtime's CloudAuth takes ``IAM_URL`` from the environment, api/auth.py),
``http://api.global-search-tagging.cloud.ibm.com`` and ``http://globalcatalog.cloud.ibm.com/api/v1``
(instance discovery, accounts/account.list_instances) and, from the instance CRN,
``http://quantum.cloud.ibm.com/api/v1`` (api/utils.default_runtime_url_resolver). Those derived URLs drop
any port, so the server is the client's HTTP proxy (``proxies={"urls": {"http": ...}}``, passed to requests
by every one of those calls) and routes on the requested host.

Answers follow the platform's documented shapes: IAM's token reply (a JWT the SDK decodes for its expiry)
and its 400 for an unknown API key; Global Search items with a plan in Global Catalog;
``GET /api/v1/backends`` (``devices``), a device's ``configuration`` and ``properties`` (the fake
provider's snapshots, which are dumps of these replies) and ``status`` (``state``, ``status``,
``length_queue``); ``GET /api/v1/instances/usage``; ``POST /api/v1/jobs``, ``GET /api/v1/jobs/{id}``
(``state.status``: Queued, Running, Completed, Cancelled, Failed), its ``results`` (the submitted executor
program run on the device's fake backend, in IBM's executor v2.0 result model; a failure's text),
``metrics`` (``timestamps``, ``usage``; no queue position, as the platform's JobMetrics schema) and
``cancel`` (204).
"""

from __future__ import annotations

import base64
import json
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CLOUD_URL = "http://cloud.ibm.com"
IAM_URL = "http://iam.cloud.ibm.com"
INSTANCE_CRN = "crn:v1:bluemix:public:quantum-computing:us-east:a/standin:standin-instance::"
PLAN_ID = "standin-open-plan"


def _snapshot(device: str, kind: str) -> dict[str, Any]:
    """The fake provider's saved ``configuration`` / ``properties`` reply of ``device`` (ibm_kyiv -> kyiv)."""
    import qiskit_ibm_runtime.fake_provider as provider

    short = device.removeprefix("ibm_")
    prefix = "conf" if kind == "configuration" else "props"
    path = Path(provider.__file__).parent / "backends" / short / f"{prefix}_{short}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    data["backend_name"] = device
    return data


def _run_executor(device: str, params: dict[str, Any], seed: int) -> str:
    """The result text of an ``executor`` job, as ``GET /api/v1/jobs/{id}/results`` sends it: the submitted
    quantum program (IBM's published ``ibm_quantum_schemas`` executor v2.0 model) run on the device's fake
    backend (Aer with its noise) and encoded in the v2.0 result model (results of each item as compressed
    tensors, the program's passthrough data and semantic role returned unchanged)."""
    import qiskit_ibm_runtime.fake_provider as provider
    from ibm_quantum_schemas.common.tensor import CompressedTensorModel
    from ibm_quantum_schemas.executor.version_2_0 import models
    from qiskit_ibm_runtime.fake_provider.executor.run_quantum_program import run_quantum_program
    from qiskit_ibm_runtime.options_models.simulator import SimulatorOptions
    from qiskit_ibm_runtime.quantum_program.converters.converters_2_0 import quantum_program_from_2_0

    request = models.ParamsModel.model_validate(params)
    program, _ = quantum_program_from_2_0(request)
    backend = getattr(provider, "Fake" + device.removeprefix("ibm_").capitalize())()
    result = run_quantum_program(backend, program, SimulatorOptions(seed_simulator=seed))
    reply = models.QuantumProgramResultModel(
        data=[
            models.QuantumProgramResultItemModel(
                results={name: CompressedTensorModel.from_numpy(value) for name, value in item.items()},
                metadata=models.ItemMetadataModel(),
            )
            for item in result
        ],
        metadata=models.MetadataModel(chunk_timing=[]),
        passthrough_data=request.quantum_program.passthrough_data,
        semantic_role=request.quantum_program.semantic_role,
    )
    return reply.model_dump_json()


def _jwt(lifetime: int = 3600) -> str:
    """An unsigned JWT with exp and iat: the IBM Cloud SDK decodes the access token only for its expiry."""

    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    now = int(time.time())
    return f"{part({'alg': 'RS256', 'typ': 'JWT'})}.{part({'iat': now, 'exp': now + lifetime})}.c3RhbmRpbg"


@dataclass
class StandInJob:
    """A job on the stand-in: the states it reports, one per status request (the last one stays)."""

    id: str
    backend: str
    program: str
    params: dict[str, Any]
    states: list[str]
    reads: int = 0
    cancelled: bool = False

    def state(self) -> str:
        if self.cancelled:
            return "Cancelled"
        state = self.states[min(self.reads, len(self.states) - 1)]
        self.reads += 1
        return state


@dataclass
class IBMStandIn:
    """The platform's state: the valid API key, the devices (name -> length_queue and whether online) and
    the states each new job goes through. ``requests`` records (method, host, path) of every call."""

    api_key: str = "standin-api-key"
    devices: dict[str, tuple[int, bool]] = field(default_factory=lambda: {"ibm_kyiv": (12, True)})
    job_states: list[str] = field(default_factory=lambda: ["Queued", "Queued", "Running", "Completed"])
    #: The platform's reason on a job that ends Failed.
    fail_reason: str = "Error code 1517; Job failed on the device."
    requests: list[tuple[str, str, str]] = field(default_factory=list)
    jobs: dict[str, StandInJob] = field(default_factory=dict)
    proxy_url: str = ""
    #: Called (on the server's thread) after each status read of a job, e.g. to press Stop meanwhile.
    on_job_read: Callable[[StandInJob], None] | None = None

    def service_options(self) -> dict[str, Any]:
        """QiskitRuntimeService arguments that reach this stand-in (IAM_URL goes in the environment)."""
        return {"url": CLOUD_URL, "proxies": {"urls": {"http": self.proxy_url}}}

    def calls(self, host: str) -> list[str]:
        """The ``METHOD path`` of each request made to ``host`` (a prefix such as 'quantum.')."""
        return [f"{m} {p}" for m, h, p in self.requests if h.startswith(host)]

    # -- routing ---------------------------------------------------------------------------------------

    def answer(self, method: str, host: str, path: str, body: bytes, headers: Any) -> tuple[int, Any]:
        self.requests.append((method, host, path))
        route = urlsplit(path).path
        if host.startswith("iam."):
            return self._iam(body)
        token = str(headers.get("Authorization", ""))
        if not token.startswith("Bearer ") or token.count(".") != 2:
            return 401, {"errors": [{"code": "unauthorized", "message": "Invalid token"}]}
        if host.startswith("api.global-search-tagging."):
            item = {
                "crn": INSTANCE_CRN,
                "name": "standin-instance",
                "service_plan_unique_id": PLAN_ID,
                "tags": [],
                "doc": {"extensions": {"quantum": {"allocation": "open"}}},
            }
            return 200, {"items": [item], "limit": 100}
        if host.startswith("globalcatalog."):
            return 200, {
                "overview_ui": {"en": {"display_name": "Open"}},
                "metadata": {"pricing": {"type": "free"}},
            }
        if host.startswith("quantum."):
            return self._runtime(method, route.removeprefix("/api/v1"), body)
        return 404, {"errors": [{"message": f"no such host {host}"}]}

    def _iam(self, body: bytes) -> tuple[int, Any]:
        form = dict(pair.split("=", 1) for pair in body.decode().split("&") if "=" in pair)
        if form.get("apikey") != self.api_key:
            return 400, {
                "errorCode": "BXNIM0415E",
                "errorMessage": "Provided API key could not be found.",
                "context": {},
            }
        return 200, {
            "access_token": _jwt(),
            "refresh_token": "not_supported",
            "token_type": "Bearer",
            "expires_in": 3600,
            "expiration": int(time.time()) + 3600,
            "scope": "ibm openid",
        }

    def _runtime(self, method: str, route: str, body: bytes) -> tuple[int, Any]:
        parts = [p for p in route.split("/") if p]
        if parts == ["backends"]:
            devices = [
                {"name": name, "status": {"name": "online" if up else "offline"}, "queue_length": queue}
                for name, (queue, up) in self.devices.items()
            ]
            return 200, {"devices": devices}
        if len(parts) == 3 and parts[0] == "backends" and parts[1] in self.devices:
            name = parts[1]
            queue, up = self.devices[name]
            if parts[2] == "status":
                return 200, {
                    "state": up,
                    "status": "active" if up else "maintenance",
                    "message": "",
                    "length_queue": queue,
                    "backend_version": "1.0.0",
                }
            if parts[2] in ("configuration", "properties"):
                return 200, _snapshot(name, parts[2])
        if parts == ["instances", "usage"]:  # checked before each job is submitted
            return 200, {
                "instance_id": INSTANCE_CRN,
                "plan_id": PLAN_ID,
                "usage_consumed_seconds": 60,
                "usage_period": {
                    "start_time": "2026-11-01T00:00:00.000Z",
                    "end_time": "2026-11-30T23:59:59.000Z",
                },
                "usage_allocation_seconds": 600,
                "usage_remaining_seconds": 540,
                "usage_limit_reached": False,
            }
        if parts == ["jobs"] and method == "POST":
            request = json.loads(body or b"{}")
            job = StandInJob(
                id=f"standin-{len(self.jobs) + 1}",
                backend=str(request.get("backend")),
                program=str(request.get("program_id")),
                params=request.get("params") or {},
                states=list(self.job_states),
            )
            self.jobs[job.id] = job
            return 200, {"id": job.id, "backend": job.backend}
        if len(parts) >= 2 and parts[0] == "jobs" and parts[1] in self.jobs:
            job = self.jobs[parts[1]]
            tail = parts[2] if len(parts) > 2 else ""
            if tail == "" and method == "GET":
                status = job.state()
                if self.on_job_read is not None:
                    self.on_job_read(job)
                return 200, {
                    "id": job.id,
                    "backend": job.backend,
                    "state": {"status": status, "reason": self.fail_reason if status == "Failed" else ""},
                    "status": status,
                    "program": {"id": job.program},
                    "created": "2026-11-26T12:00:00.000000Z",
                    "cost": 0,
                }
            if tail == "results" and job.states[-1] == "Completed" and not job.cancelled:
                return 200, _Text(_run_executor(job.backend, job.params, seed=11))
            if tail == "results" and job.states[-1] == "Failed":  # the client reads a failure's text here
                return 200, _Text(self.fail_reason)
            if tail == "cancel" and method == "POST":
                job.cancelled = True
                return 204, None
            if tail == "metrics":
                return 200, {
                    "timestamps": {"created": "2026-11-26T12:00:00.000000Z"},
                    "usage": {"qpu_charge_time_seconds": 0, "status": "pending"},
                    "qiskit_version": "2.6.0",
                }
        return 404, {"errors": [{"code": "not_found", "message": f"{method} {route} is not served here"}]}


class _Text(str):
    """A reply sent as it is (the results endpoint answers the result document's text)."""


class _Handler(BaseHTTPRequestHandler):
    standin: IBMStandIn

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        target = urlsplit(self.path)  # a proxy request: the absolute URL
        host = target.hostname or str(self.headers.get("Host", ""))
        path = target.path + (f"?{target.query}" if target.query else "")
        try:
            status, reply = self.standin.answer(self.command, host, path, body, self.headers)
        except Exception as exc:  # a stand-in bug: say it in the reply (and on stderr) instead of hanging up
            traceback.print_exc()
            status, reply = 500, {"errors": [{"message": f"stand-in failed: {exc!r}"}]}
        if reply is None:
            data = b""
        elif isinstance(reply, _Text):
            data = str(reply).encode()
        else:
            data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return


@contextmanager
def running(standin: IBMStandIn) -> Iterator[IBMStandIn]:
    """Serve ``standin`` on a free local port for the duration of the block."""
    handler = type("Handler", (_Handler,), {"standin": standin})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    standin.proxy_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield standin
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
