"""The brain tumor classifiers as PyTorch modules: ``build_model(name, config)``.

Every model reads the shared input of :mod:`.image_input` (n, 1, S, S) at its ``DEFAULT_INPUT_SIZE``
and returns 3 logits (meningioma, glioma, pituitary).

- ``densenet121``: the project's own definition of DenseNet-121 (Huang et al. 2017: growth rate 32, dense
  blocks of 6/12/24/16 layers, bottleneck width 4 x growth, transitions halving the channels), one input
  channel, 3 classes. torchvision is not used (its wheels pull a CUDA torch). The layer names follow
  torchvision's, so a DenseNet-121 state dict can be loaded from ``QMLSTUDIO_DENSENET_WEIGHTS``
  (:func:`load_pretrained_densenet`; the first convolution's RGB filters are summed into one channel,
  the 1000-class classifier is left out).
- ``FCN``: a fully convolutional classifier: four conv-BN-ReLU-pool blocks, a 1x1 convolution to the 3
  classes and global average pooling (no dense layer).
- ``3D_CNNs``: a 3-D CNN over a stack of ``DEPTH_3D`` neighbouring slices of the same patient (the
  slice, the one before and the one after in the dataset's order; at a patient's first or last slice the
  slice itself is repeated). A single 2-D image (prediction) is the stack of itself three times.
- ``QCNN``: :mod:`.qcnn` (classical trunk, then a quantum convolution simulated exactly).
- ``QSVM`` is not a module: :mod:`.qsvm`.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

NUM_CLASSES = 3
#: Input side in pixels per model: chosen so that training runs in minutes on a 2-core CPU
#: (tests/bench/brain-tumor-bench.py measures images/s at these sizes).
DEFAULT_INPUT_SIZE: dict[str, int] = {
    "densenet121": 64,
    "FCN": 64,
    "3D_CNNs": 64,
    "QCNN": 32,
    "QSVM": 64,
}
CLASSICAL_MODELS = ("densenet121", "FCN", "3D_CNNs")
QUANTUM_MODELS = ("QCNN", "QSVM")
DEPTH_3D = 3
#: Quantum models the schema lists but this release does not build: the handler refuses them with the
#: reason and the form shows them disabled with the same words (schemas/problems/brain-tumor.json
#: x-field.disabled; a test keeps the two equal). Never replaced silently by another model.
NOT_BUILT_MODELS: dict[str, str] = {
    "QGANs": "QGANs (a quantum generator for data augmentation) is not available in this release: "
    "choose QCNN or QSVM.",
    "QVAE": "QVAE (a variational autoencoder with a quantum latent layer) is not available in this release: "
    "choose QCNN or QSVM.",
    "QBMs": "QBMs (quantum Boltzmann machines) are not available in this release: choose QCNN or QSVM.",
}
DENSENET_WEIGHTS_ENV = "QMLSTUDIO_DENSENET_WEIGHTS"


def _nn() -> Any:
    from torch import nn

    return nn


def build_densenet121(growth: int = 32, blocks: tuple[int, ...] = (6, 12, 24, 16), bn_size: int = 4) -> Any:
    import torch
    from torch import nn

    class DenseLayer(nn.Module):
        def __init__(self, channels: int) -> None:
            super().__init__()
            self.norm1 = nn.BatchNorm2d(channels)
            self.relu1 = nn.ReLU(inplace=True)
            self.conv1 = nn.Conv2d(channels, bn_size * growth, 1, bias=False)
            self.norm2 = nn.BatchNorm2d(bn_size * growth)
            self.relu2 = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=False)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = self.conv1(self.relu1(self.norm1(x)))
            out = self.conv2(self.relu2(self.norm2(out)))
            return torch.cat([x, out], 1)

    features: OrderedDict[str, Any] = OrderedDict(
        conv0=nn.Conv2d(1, 2 * growth, 7, stride=2, padding=3, bias=False),
        norm0=nn.BatchNorm2d(2 * growth),
        relu0=nn.ReLU(inplace=True),
        pool0=nn.MaxPool2d(3, stride=2, padding=1),
    )
    channels = 2 * growth
    for b, count in enumerate(blocks, start=1):
        block = nn.Sequential()
        for i in range(count):
            block.add_module(f"denselayer{i + 1}", DenseLayer(channels + i * growth))
        features[f"denseblock{b}"] = block
        channels += count * growth
        if b != len(blocks):  # compression 0.5
            features[f"transition{b}"] = nn.Sequential(
                OrderedDict(
                    norm=nn.BatchNorm2d(channels),
                    relu=nn.ReLU(inplace=True),
                    conv=nn.Conv2d(channels, channels // 2, 1, bias=False),
                    pool=nn.AvgPool2d(2, stride=2),
                )
            )
            channels //= 2
    features["norm5"] = nn.BatchNorm2d(channels)

    class DenseNet121(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(features)
            self.classifier = nn.Linear(channels, NUM_CLASSES)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = torch.relu(self.features(x))
            out = torch.flatten(nn.functional.adaptive_avg_pool2d(out, 1), 1)
            result: torch.Tensor = self.classifier(out)
            return result

    return DenseNet121()


def load_pretrained_densenet(model: Any, path: str | Path) -> list[str]:
    """Load a DenseNet-121 state dict (torchvision's names) into ``model``: the first convolution's input
    channels are summed into one, tensors whose shape differs (the classifier) are skipped. Returns the
    names of the skipped tensors."""
    import torch

    state = torch.load(str(path), map_location="cpu", weights_only=True)
    if isinstance(state, dict) and "state_dict" in state:
        state = state["state_dict"]
    own = model.state_dict()
    loaded: dict[str, Any] = {}
    skipped: list[str] = []
    for raw_name, tensor in state.items():
        # Old torchvision checkpoints spell "denselayer1.norm.1"; today's "denselayer1.norm1".
        name = re.sub(r"\.(norm|relu|conv)\.([12])\.", r".\1\2.", raw_name)
        if name == "features.conv0.weight" and tensor.dim() == 4 and tensor.shape[1] != 1:
            tensor = tensor.sum(dim=1, keepdim=True)
        if name in own and own[name].shape == tensor.shape:
            loaded[name] = tensor
        else:
            skipped.append(raw_name)
    missing = [n for n in own if n not in loaded and not n.startswith("classifier")]
    if missing:
        raise ValueError(f"{path} is not a DenseNet-121 state dict ({len(missing)} tensors missing)")
    model.load_state_dict(loaded, strict=False)
    return skipped


def pretrained_densenet_path() -> Path | None:
    """The configured pretrained weights file, when it exists (no download: the worker is offline)."""
    value = os.environ.get(DENSENET_WEIGHTS_ENV)
    return Path(value) if value and Path(value).is_file() else None


def build_fcn() -> Any:
    import torch
    from torch import nn

    def block(cin: int, cout: int) -> list[Any]:
        return [
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
            nn.MaxPool2d(2),
        ]

    class FCN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(*block(1, 16), *block(16, 32), *block(32, 64), *block(64, 128))
            self.score = nn.Conv2d(128, NUM_CLASSES, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            result: torch.Tensor = self.score(self.features(x)).mean(dim=(2, 3))
            return result

    return FCN()


def build_cnn3d() -> Any:
    import torch
    from torch import nn

    def block(cin: int, cout: int) -> list[Any]:
        return [
            nn.Conv3d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm3d(cout),
            nn.ReLU(),
            nn.MaxPool3d((1, 2, 2)),  # pool within the slice, keep the short depth
        ]

    class CNN3D(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(*block(1, 16), *block(16, 32), *block(32, 64))
            self.head = nn.Linear(64, NUM_CLASSES)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if x.dim() == 4:  # a single slice: its own neighbours
                x = x.unsqueeze(2).expand(-1, -1, DEPTH_3D, -1, -1)
            out = self.features(x).mean(dim=(2, 3, 4))
            result: torch.Tensor = self.head(out)
            return result

    return CNN3D()


def build_model(name: str, config: dict[str, Any] | None = None) -> Any:
    """A fresh (randomly initialized) ``nn.Module`` for ``name``; ``config`` holds the quantum settings."""
    config = dict(config or {})
    if name == "densenet121":
        return build_densenet121()
    if name == "FCN":
        return build_fcn()
    if name == "3D_CNNs":
        return build_cnn3d()
    if name == "QCNN":
        from qmlstudio_worker.problems.brain_tumor.qcnn import build_qcnn

        return build_qcnn(config)
    raise ValueError(f"no network named {name!r}; expected one of densenet121, FCN, 3D_CNNs, QCNN")
