"""The form and the worker give the same reasons for the brain tumor models that are not built."""

from __future__ import annotations

import json

from conftest import REPO_ROOT

from qmlstudio_worker.bio.models import NOT_BUILT_MODELS


def test_the_schema_shows_the_worker_s_reasons_on_the_disabled_options() -> None:
    schema = json.loads((REPO_ROOT / "schemas" / "problems" / "brain-tumor.json").read_text(encoding="utf-8"))
    model = schema["forms"]["model_configurations"]["schema"]["properties"]["model"]
    assert model["x-field"]["disabled"] == NOT_BUILT_MODELS
    assert set(NOT_BUILT_MODELS) <= set(model["enum"])
