"""The run record is written to the output's directory and returned by the output APIs: it keeps no IBM
Quantum token from the job body, while the body the worker was handed still has it."""

from __future__ import annotations

import json

from qmlstudio_worker.jobs.run_record import build_run_record

TOKEN = "ibm-secret-token-0123456789abcdefWXYZ"


def test_run_record_config_holds_no_token() -> None:
    body = {
        "use_quantum_simulator": False,
        "quantum_device_backend": "ibm_kyiv",
        "actual_quantum_device_token": TOKEN,
        "nested": [{"ibm_token": TOKEN, "custom_ibm_token": TOKEN}],
        "epochs": 2,
    }
    record = build_run_record(body, seed=0)
    assert TOKEN not in json.dumps(record)
    assert record["config"]["actual_quantum_device_token"] is None
    assert record["config"]["nested"] == [{"ibm_token": None, "custom_ibm_token": None}]
    assert record["config"]["epochs"] == 2
    assert body["actual_quantum_device_token"] == TOKEN  # the worker's own body is untouched


def test_run_record_without_a_token_is_unchanged() -> None:
    body = {"use_quantum_simulator": True, "actual_quantum_device_token": "", "epochs": 2}
    assert build_run_record(body, seed=0)["config"] == body
