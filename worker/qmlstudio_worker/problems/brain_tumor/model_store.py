"""Saving a trained brain tumor model with what prediction needs, and loading it back.

A bundle is a directory holding ``model.json``::

    {"format_version": 1, "problem": "brain-tumor", "framework": "torch" | "qsvm", "model_name",
     "model_type": "classical" | "quantum", "config", "input_size", "classes",
     "preprocessing": "image_input.to_model_input", "extra", "files": {...}}

and the weights: ``model.pt`` (a ``state_dict``, read with ``weights_only=True`` so no pickled code runs)
for the networks of :mod:`.models`; the QSVM writes its own files (:mod:`.qsvm`). The input of
:meth:`LoadedModel.predict_proba` is :func:`.image_input.to_model_input` at ``input_size``: the one
preprocessing of training and prediction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

FORMAT_VERSION = 1
MODEL_FILE = "model.json"
WEIGHTS_FILE = "model.pt"
PROBLEM = "brain-tumor"
PREPROCESSING = "qmlstudio_worker.problems.brain_tumor.image_input.to_model_input"

ModelType = Literal["classical", "quantum"]


@dataclass
class LoadedModel:
    model_name: str
    model_type: str
    classes: list[str]
    input_size: int
    config: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)
    _proba: Callable[[Any], np.ndarray[Any, Any]] | None = None

    def predict_proba(self, x: Any) -> np.ndarray[Any, Any]:
        """Class probabilities (n, 3), columns in ``classes`` order, for x (n, 1, S, S) at ``input_size``."""
        if self._proba is None:
            raise RuntimeError("this model has no predictor")
        if tuple(x.shape[-2:]) != (self.input_size, self.input_size):
            raise ValueError(
                f"the model reads {self.input_size}x{self.input_size} images, got {tuple(x.shape[-2:])}"
            )
        return self._proba(x)


def module_probabilities(module: Any) -> Callable[[Any], np.ndarray[Any, Any]]:
    """softmax of an ``nn.Module``'s logits, in eval mode and without gradients."""
    import torch

    def proba(x: Any) -> np.ndarray[Any, Any]:
        module.eval()
        with torch.no_grad():
            logits = module(x.to(torch.float32))
            return torch.softmax(logits.to(torch.float64), dim=1).numpy()

    return proba


def save_bundle(
    directory: str | Path,
    *,
    model_name: str,
    model_type: ModelType,
    model: Any,
    config: dict[str, Any],
    input_size: int,
    classes: Sequence[str],
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write the bundle into ``directory`` (created); returns the path of its ``model.json``."""
    import torch
    from torch import nn

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(model, nn.Module):
        torch.save(model.state_dict(), out / WEIGHTS_FILE)
        framework, files = "torch", {"weights": WEIGHTS_FILE}
    elif hasattr(model, "save_files"):
        framework, files = "qsvm", dict(model.save_files(out))
    else:
        raise TypeError(f"cannot save a {type(model).__name__}: not an nn.Module nor a QSVM")
    card = {
        "format_version": FORMAT_VERSION,
        "problem": PROBLEM,
        "framework": framework,
        "model_name": model_name,
        "model_type": model_type,
        "config": dict(config),
        "input_size": int(input_size),
        "classes": list(classes),
        "preprocessing": PREPROCESSING,
        "extra": dict(extra or {}),
        "files": files,
    }
    path = out / MODEL_FILE
    path.write_text(json.dumps(card, indent=2, allow_nan=False), encoding="utf-8")
    return path


def read_card(path: str | Path) -> dict[str, Any]:
    """The ``model.json`` of a bundle; ``path`` is the bundle directory or its ``model.json``."""
    card_path = Path(path)
    if card_path.is_dir():
        card_path = card_path / MODEL_FILE
    card: dict[str, Any] = json.loads(card_path.read_text(encoding="utf-8"))
    if card.get("problem") != PROBLEM or card.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{card_path} is not a brain tumor model bundle (format {FORMAT_VERSION})")
    return card


def load_bundle(path: str | Path) -> LoadedModel:
    """The bundle at ``path`` (its directory or ``model.json``) ready to predict."""
    import torch

    card = read_card(path)
    directory = Path(path) if Path(path).is_dir() else Path(path).parent
    name = str(card["model_name"])
    config = dict(card.get("config") or {})
    if card["framework"] == "torch":
        from qmlstudio_worker.problems.brain_tumor.models import build_model

        module = build_model(name, config)
        state = torch.load(directory / card["files"]["weights"], map_location="cpu", weights_only=True)
        # assign: the loaded tensors become the parameters (no copy; copying into a fresh module costs
        # over a second in a new worker process, the whole latency budget of a prediction).
        module.load_state_dict(state, assign=True)
        proba = module_probabilities(module)
    elif card["framework"] == "qsvm":
        from qmlstudio_worker.problems.brain_tumor.qsvm import load_qsvm

        proba = load_qsvm(directory, card).predict_proba
    else:
        raise ValueError(f"unknown framework {card['framework']!r} in {directory / MODEL_FILE}")
    return LoadedModel(
        model_name=name,
        model_type=str(card["model_type"]),
        classes=list(card["classes"]),
        input_size=int(card["input_size"]),
        config=config,
        extra=dict(card.get("extra") or {}),
        _proba=proba,
    )
