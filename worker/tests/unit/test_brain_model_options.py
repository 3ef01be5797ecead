"""The form and the worker give the same reasons for the brain tumor models that are not built."""

from __future__ import annotations

import json

from conftest import REPO_ROOT

from qmlstudio_worker.problems.brain_tumor.models import NOT_BUILT_MODELS


def test_the_schema_shows_the_worker_s_reasons_on_the_disabled_options() -> None:
    schema = json.loads((REPO_ROOT / "schemas" / "problems" / "brain-tumor.json").read_text(encoding="utf-8"))
    model = schema["forms"]["model_configurations"]["schema"]["properties"]["model"]
    assert model["x-field"]["disabled"] == NOT_BUILT_MODELS
    assert set(NOT_BUILT_MODELS) <= set(model["enum"])


def test_the_training_file_field_states_the_input_sizes_the_models_train_at() -> None:
    """The Train sub-tab says how far slices are shrunk for CPU training: it must be what the worker does."""
    from qmlstudio_worker.problems.brain_tumor.models import DEFAULT_INPUT_SIZE

    schema = json.loads((REPO_ROOT / "schemas" / "problems" / "brain-tumor.json").read_text(encoding="utf-8"))
    text = schema["forms"]["dataset"]["schema"]["properties"]["file"]["description"]
    times = "\N{MULTIPLICATION SIGN}"
    for model, size in DEFAULT_INPUT_SIZE.items():
        segment = text.split(f"{size}{times}{size} px for ")[1]
        segment = segment.split(" px for ")[0].split(".")[0]
        assert model in segment, (model, size, text)
