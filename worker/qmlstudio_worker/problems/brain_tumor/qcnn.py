"""QCNN: a quantum convolutional network for the brain tumor slices, simulated exactly on the CPU.

1. classical trunk: conv-BN-ReLU-pool twice and a 3x3 convolution take the 32x32 input down to a
   ``FEATURE_MAP`` x ``FEATURE_MAP`` map of ``TRUNK_CHANNELS`` channels;
2. quantum convolution: at every ``patch_size`` x ``patch_size`` patch of that map, moved by
   ``step_size``, the patch's values are mapped (a learned linear map, like a convolution's filters) to
   ``n_qubits`` angles pi * tanh(.), angle-encoded with RY on each qubit, then ``circuit_depth`` layers of
   a trainable ansatz (RealAmplitudes: RY rotations and a CX chain, the same weights at every patch) act,
   and the <Z> of every qubit is read out: a map of ``n_qubits`` quantum channels;
3. quantum pooling: the mean of those channels over the patches;
4. head: ``n_layers`` dense layers of ``units_per_layer`` with ``activation`` and ``dropout_rate``, then
   3 logits.

The circuits are simulated as exact statevectors in torch (float64, the layer of
:mod:`qmlstudio_worker.quantum.hybrid` on :mod:`qmlstudio_worker.quantum.statevector`), so gradients
reach the quantum weights by autograd, without shots; the tests compare the expectations with
``qiskit.quantum_info.Statevector``. qiskit-machine-learning (installed, 0.9.0, the tests' reference
for the VQC) is not used here: its TorchConnector would run each patch's circuit through a primitive;
this module batches all patches in one torch simulation and plays its part. A statevector of n qubits
holds 2**n amplitudes per patch and per image:
:func:`check_qubit_budget` refuses a configuration whose simulation would not fit this machine's
memory, naming the qubit counts that do.
"""

from __future__ import annotations

import math
from typing import Any

from qmlstudio_worker.quantum.hybrid import quantum_layer
from qmlstudio_worker.quantum.statevector import Ansatz

INPUT_SIZE = 32
TRUNK_CHANNELS = 8
FEATURE_MAP = 6
ANSATZ = "RealAmplitudes"
#: Memory the autograd graph of the simulated circuits of one batch may take.
SIMULATION_BUDGET_BYTES = 1_500_000_000
DEFAULTS: dict[str, Any] = {
    "n_qubits": 4,
    "circuit_depth": 3,
    "patch_size": 2,
    "step_size": 1,
    "n_layers": 1,
    "units_per_layer": 128,
    "activation": "relu",
    "dropout_rate": 0.2,
}


def qcnn_config(values: dict[str, Any]) -> dict[str, Any]:
    """The QCNN settings: ``values`` over the defaults (the form's defaults)."""
    config = dict(DEFAULTS)
    config.update({k: v for k, v in values.items() if k in DEFAULTS and v is not None})
    return config


def patch_positions(patch_size: int, step_size: int) -> int:
    per_side = (FEATURE_MAP - patch_size) // step_size + 1
    return per_side * per_side


def simulation_bytes(config: dict[str, Any], batch_size: int) -> int:
    """About the memory the exact simulation of one training batch keeps for backpropagation: one float64
    statevector per patch and image for each gate layer the graph remembers."""
    n = int(config["n_qubits"])
    states = batch_size * patch_positions(int(config["patch_size"]), int(config["step_size"]))
    saved_layers = n + (int(config["circuit_depth"]) + 1) * (n + 1)
    return int(states * (2**n) * 8 * saved_layers * 2)  # x2: the gradients of the same size


def check_qubit_budget(config: dict[str, Any], batch_size: int) -> None:
    """Refuse (ValueError, the user's words) a QCNN whose simulation exceeds the budget."""
    need = simulation_bytes(config, batch_size)
    if need <= SIMULATION_BUDGET_BYTES:
        return
    fitting = [
        q
        for q in (4, 10, 15, 20)
        if simulation_bytes({**config, "n_qubits": q}, batch_size) <= SIMULATION_BUDGET_BYTES
    ]
    hint = f"use {' or '.join(str(q) for q in fitting)}" if fitting else "use fewer qubits or a smaller batch"
    raise ValueError(
        f"n_qubits {config['n_qubits']} needs about {need / 1e9:.1f} GB of memory to simulate "
        f"{batch_size * patch_positions(int(config['patch_size']), int(config['step_size']))} circuits of "
        f"{2 ** int(config['n_qubits'])} amplitudes per batch exactly (this machine allows "
        f"{SIMULATION_BUDGET_BYTES / 1e9:.1f} GB): {hint} on this machine"
    )


def build_qcnn(values: dict[str, Any]) -> Any:
    """The QCNN ``nn.Module`` for the settings in ``values`` (see :data:`DEFAULTS`)."""
    import torch
    from torch import nn

    config = qcnn_config(values)
    n = int(config["n_qubits"])
    patch, step = int(config["patch_size"]), int(config["step_size"])
    ansatz = Ansatz(ANSATZ, n, int(config["circuit_depth"]))
    activation = str(config["activation"])

    def act() -> nn.Module:
        return nn.Softmax(dim=1) if activation == "softmax" else nn.ReLU()

    head: list[nn.Module] = []
    width = n
    for _ in range(int(config["n_layers"])):
        units = int(config["units_per_layer"])
        head += [nn.Linear(width, units), act(), nn.Dropout(float(config["dropout_rate"]))]
        width = units
    head.append(nn.Linear(width, 3))

    class QCNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.trunk = nn.Sequential(
                nn.Conv2d(1, 8, 3, padding=1, bias=False),
                nn.BatchNorm2d(8),
                nn.ReLU(),
                nn.MaxPool2d(2),
                nn.Conv2d(8, 16, 3, padding=1, bias=False),
                nn.BatchNorm2d(16),
                nn.ReLU(),
                nn.MaxPool2d(2),
                nn.Conv2d(16, TRUNK_CHANNELS, 3),  # 8x8 -> 6x6
                nn.BatchNorm2d(TRUNK_CHANNELS),
                nn.ReLU(),
            )
            # The patch -> angles map: one learned linear map per patch, shared like a convolution's filter.
            self.encode = nn.Conv2d(TRUNK_CHANNELS, n, patch, stride=step)
            self.quantum_weights = nn.Parameter(
                torch.empty(ansatz.num_parameters, dtype=torch.float64).uniform_(-math.pi, math.pi)
            )
            self.head = nn.Sequential(*head)
            self.ansatz = ansatz

        def quantum_features(self, x: torch.Tensor) -> torch.Tensor:
            """(batch, n_qubits, positions): <Z_q> at every patch."""
            features = self.trunk(x)
            if features.shape[-1] != FEATURE_MAP:
                raise ValueError(f"the QCNN reads {INPUT_SIZE}x{INPUT_SIZE} images")
            angles = math.pi * torch.tanh(self.encode(features))  # (batch, n, h, w)
            batch = angles.shape[0]
            flat = angles.flatten(2).transpose(1, 2).reshape(-1, n).to(torch.float64)
            z = quantum_layer(flat, self.quantum_weights, self.ansatz)  # (batch * positions, n)
            out: torch.Tensor = z.reshape(batch, -1, n).transpose(1, 2).to(x.dtype)
            return out

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            pooled = self.quantum_features(x).mean(dim=2)
            result: torch.Tensor = self.head(pooled)
            return result

    return QCNN()
