"""The PennyLane side of `npm run bench:quantum` (section ``pennylane``): run by the benchmark-only venv
(tests/bench/.venv-pennylane, tests/bench/requirements-pennylane.txt), never by the worker's.

``python pennylane_reference.py INPUT.npz [DEVICE ...]`` reads the circuits' data and initial parameters that
quantum-bench.py wrote (the same rows, angles, windows, initial weights and batch order our path uses)
and prints one JSON object on stdout: for each device (``default.qubit`` with backprop,
``lightning.qubit`` with the adjoint method) the VQC training steps and the hybrid QNN epochs, timed
(wall and this process's CPU time), the final test accuracy / RMSE, and the circuits' outputs at the
check parameters (compared with ours by quantum-bench.py).

The circuits, gate for gate as worker/qmlstudio_worker/quantum/statevector.py lays them out (Qiskit's
little-endian order: qubit q is wire q):
- VQC: zz_feature_map(n, reps=2, entanglement="full") = per rep H on every qubit, P(2 x_q) on q, then for
  every pair i < j: CX(i, j), P(2 (pi - x_i)(pi - x_j)) on j, CX(i, j); then RealAmplitudes(n, reps 3) =
  (RY layer, CX (n-2, n-1) ... (0, 1)) x 3, final RY layer; read out as the odd-parity probability
  (1 - <Z...Z>) / 2.
- Hybrid QNN layer: RY(angle_q) on q, then RealAmplitudes(n, reps 2), read out as <Z_q> for every q;
  the encoder Linear(window x features, hidden) -> tanh -> Linear(hidden, n) and the head Linear(n, 1) are
  written in autograd numpy with the torch module's initial values.

Optimizer on both sides: Adam with torch's update rule (betas 0.9, 0.999, eps 1e-8, bias-corrected), so the
same initial point, data and steps give the same trajectory up to floating point. PennyLane's autograd
interface: torch is not imported here.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import math
import os
import sys
import time
from typing import Any

import numpy as onp
import pennylane as qml
from pennylane import numpy as pnp


class Adam:
    """torch.optim.Adam's update (default betas and eps) on a list of arrays."""

    def __init__(self, lr: float, shapes: list[tuple[int, ...]]) -> None:
        self.lr, self.t = lr, 0
        self.m = [onp.zeros(s) for s in shapes]
        self.v = [onp.zeros(s) for s in shapes]

    def step(
        self, params: list[onp.ndarray], grads: list[onp.ndarray]
    ) -> list[onp.ndarray]:
        self.t += 1
        out = []
        for k, (p, g) in enumerate(zip(params, grads, strict=True)):
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            denom = onp.sqrt(self.v[k]) / math.sqrt(1 - 0.999**self.t) + 1e-8
            out.append(p - self.lr / (1 - 0.9**self.t) * self.m[k] / denom)
        return out


def feature_map(x: Any, n: int, reps: int = 2) -> None:
    for _ in range(reps):
        for q in range(n):
            qml.Hadamard(wires=q)
        for q in range(n):
            qml.PhaseShift(2.0 * x[..., q], wires=q)
        for i in range(n):
            for j in range(i + 1, n):
                qml.CNOT(wires=[i, j])
                qml.PhaseShift(
                    2.0 * (math.pi - x[..., i]) * (math.pi - x[..., j]), wires=j
                )
                qml.CNOT(wires=[i, j])


def real_amplitudes(w: Any, n: int, reps: int) -> None:
    for layer in range(reps + 1):
        for q in range(n):
            qml.RY(w[layer * n + q], wires=q)
        if layer == reps:
            break
        for control in range(n - 2, -1, -1):
            qml.CNOT(wires=[control, control + 1])


def device_and_method(name: str, n: int) -> tuple[Any, str]:
    if name == "default.qubit":
        return qml.device("default.qubit", wires=n), "backprop"
    return qml.device("lightning.qubit", wires=n), "adjoint"


def broadcasts(name: str, n: int) -> bool:
    """Whether default.qubit gets a batch of rows as one broadcast circuit, else one circuit per row.

    default.qubit applies a gate by einsum while the state has fewer axes than
    ``EINSUM_STATE_WIRECOUNT_PERF_THRESHOLD`` (13 in PennyLane 0.45) and by tensordot from there on. A
    broadcast state has one axis per wire plus the batch axis, so from 12 wires a broadcast gate meets a
    broadcast state in the tensordot path, which does not handle two batch axes: ``ValueError:
    shape-mismatch for sum`` (reproduced with a bare 12-wire qnode: RY(a[..., q]) on every wire, 3 rows;
    with the threshold raised to 14 the same call returns cos(a), so the einsum path is right). There each
    row runs as its own circuit: the same circuits, values and gradients, one tape per row.
    lightning.qubit's adjoint takes no broadcast tapes: PennyLane splits a batch into one tape per row
    itself, so it is given the batch either way."""
    if name != "default.qubit":
        return True
    threshold = importlib.import_module(
        "pennylane.devices.qubit.apply_operation"
    ).EINSUM_STATE_WIRECOUNT_PERF_THRESHOLD
    return n + 1 < int(threshold)


def each_row(fn: Any, batched: bool, x: Any, *args: Any) -> Any:
    """``fn`` on the rows of ``x``: one broadcast call, or one call per row stacked (rows first)."""
    if batched:
        return fn(x, *args)
    return pnp.stack([fn(x[i], *args) for i in range(x.shape[0])])


def qnode(dev: Any, method: str, device_vjp: bool = False) -> Any:
    """The qnode decorator. ``device_vjp``: lightning's adjoint computes the vector-Jacobian product
    itself; measured faster for the hybrid layer (n outputs per row: 9.1 s against 17.0 s CPU per 4-qubit
    epoch) and slower for the VQC's one output (0.74 s against about 0.19 s CPU per step), so only there."""
    if method == "adjoint" and device_vjp:
        return qml.qnode(dev, interface="autograd", diff_method=method, device_vjp=True)
    return qml.qnode(dev, interface="autograd", diff_method=method)


def timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def vqc(data: Any, name: str) -> dict[str, Any]:
    n = int(data["vqc_qubits"])
    dev, method = device_and_method(name, n)
    batched = broadcasts(name, n)
    parity_op = qml.prod(*[qml.PauliZ(q) for q in range(n)]) if n > 1 else qml.PauliZ(0)

    @qnode(dev, method)
    def circuit(x: Any, w: Any) -> Any:
        feature_map(x, n)
        real_amplitudes(w, n, 3)
        return qml.expval(parity_op)

    @qml.qnode(dev, diff_method=None)  # the equivalence check only: not differentiated
    def probabilities(x: Any, w: Any) -> Any:
        feature_map(x, n)
        real_amplitudes(w, n, 3)
        return qml.probs(
            wires=list(reversed(range(n)))
        )  # index bit q = qubit q, as ours

    x_train = onp.asarray(data["vqc_x_train"])
    positive = onp.asarray(data["vqc_y_train"]).astype(bool)
    rows, n_pos = len(positive), int(positive.sum())
    class_weights = onp.where(positive, rows / (2 * n_pos), rows / (2 * (rows - n_pos)))

    def odd_probability(x: Any, w: Any) -> Any:
        return (1.0 - each_row(circuit, batched, x, w)) / 2.0

    def loss(w: Any) -> Any:
        p = odd_probability(x_train, w)
        p_true = pnp.where(positive, p, 1.0 - p)
        return (
            -pnp.sum(class_weights * pnp.log(pnp.maximum(p_true, 1e-10)))
            / class_weights.sum()
        )

    grad = qml.grad(loss, argnums=0)
    w = onp.asarray(data["vqc_w0"], dtype=float)
    check = onp.asarray(
        each_row(
            probabilities,
            batched,
            pnp.asarray(data["check_vqc_x"]),
            pnp.asarray(data["check_vqc_w"]),
        )
    )
    adam = Adam(float(data["vqc_lr"]), [w.shape])
    steps = int(data["vqc_steps"])
    losses = []
    best = (math.inf, w)  # our minimize keeps the lowest-loss point: so does this
    walls, cpus = [], []
    for _ in range(steps):
        g, step_wall, step_cpu = timed(
            lambda w=w: grad(pnp.asarray(w, requires_grad=True))
        )
        walls.append(step_wall)
        cpus.append(step_cpu)
        value = float(grad.forward)  # the loss of the same forward pass
        losses.append(value)
        if value < best[0]:
            best = (value, w)
        (w,) = adam.step([w], [onp.asarray(g)])
    p_test = onp.asarray(
        odd_probability(pnp.asarray(data["vqc_x_test"]), pnp.asarray(best[1]))
    )
    accuracy = float(
        onp.mean((p_test >= 0.5) == onp.asarray(data["vqc_y_test"]).astype(bool))
    )
    return {
        # the first step builds and caches what later steps reuse: left out of the mean, as ours
        "wall_per_step": float(onp.mean(walls[1:] or walls)),
        "cpu_per_step": float(onp.mean(cpus[1:] or cpus)),
        "losses": losses,
        "test_accuracy": accuracy,
        "check_probabilities": check.tolist(),
        "per_row": not batched,
    }


def hybrid(data: Any, name: str) -> dict[str, Any]:
    n = int(data["hyb_qubits"])
    reps = int(data["hyb_reps"])
    dev, method = device_and_method(name, n)
    batched = broadcasts(name, n)

    @qnode(dev, method, device_vjp=True)
    def layer(angles: Any, w: Any) -> Any:
        for q in range(n):
            qml.RY(angles[..., q], wires=q)
        real_amplitudes(w, n, reps)
        return [qml.expval(qml.PauliZ(q)) for q in range(n)]

    def expectations(angles: Any, w: Any) -> Any:
        return each_row(
            lambda a, w: pnp.stack(layer(a, w), axis=-1), batched, angles, w
        )  # (batch, n)

    def forward(params: list[Any], x: Any) -> Any:
        w1, b1, w2, b2, weights, wh, bh = params
        hidden = pnp.tanh(x @ w1.T + b1)
        angles = hidden @ w2.T + b2
        return (expectations(angles, weights) @ wh.T + bh)[:, 0]

    def mse(*args: Any) -> Any:
        *params, x, y = args
        return pnp.mean((forward(params, x) - y) ** 2)

    names = ("enc1_w", "enc1_b", "enc2_w", "enc2_b", "weights", "head_w", "head_b")
    params = [onp.asarray(data[f"hyb_{k}"], dtype=float) for k in names]
    check = onp.asarray(
        expectations(
            pnp.asarray(data["check_hyb_angles"]), pnp.asarray(data["check_hyb_w"])
        )
    )
    x_train = onp.asarray(data["hyb_x_train"]).reshape(len(data["hyb_x_train"]), -1)
    y_train = onp.asarray(data["hyb_y_train"])
    order = onp.asarray(
        data["hyb_order"]
    )  # (epochs, windows): each epoch's shuffled order
    batch = int(data["hyb_batch"])
    adam = Adam(float(data["hyb_lr"]), [p.shape for p in params])
    grad = qml.grad(mse, argnums=list(range(len(params))))
    epoch_walls, epoch_cpus = [], []
    for epoch in range(order.shape[0]):

        def one_epoch(epoch: int = epoch) -> None:
            nonlocal params
            for start in range(0, order.shape[1], batch):
                rows = order[epoch, start : start + batch]
                g = grad(
                    *[pnp.asarray(p, requires_grad=True) for p in params],
                    x_train[rows],
                    y_train[rows],
                )
                params = adam.step(params, [onp.asarray(gi) for gi in g])

        _, wall, cpu = timed(one_epoch)
        epoch_walls.append(wall)
        epoch_cpus.append(cpu)
    x_test = onp.asarray(data["hyb_x_test"]).reshape(len(data["hyb_x_test"]), -1)
    predicted = onp.asarray(forward([pnp.asarray(p) for p in params], x_test))
    rmse = float(onp.sqrt(onp.mean((predicted - onp.asarray(data["hyb_y_test"])) ** 2)))
    return {
        "wall_per_epoch": float(onp.mean(epoch_walls)),
        "cpu_per_epoch": float(onp.mean(epoch_cpus)),
        "test_rmse_scaled": rmse,
        "check_expectations": check.tolist(),
        "per_row": not batched,
    }


DEVICES = ("default.qubit", "lightning.qubit")


def main() -> None:
    data = dict(onp.load(sys.argv[1]))
    out: dict[str, Any] = {
        "pennylane": qml.__version__,
        "lightning": importlib.metadata.version("pennylane_lightning"),
        "numpy": onp.__version__,
        "torch_imported": "torch" in sys.modules,
        "pid": os.getpid(),
    }
    for name in sys.argv[2:] or DEVICES:  # the devices asked for, all by default
        out[name] = {"vqc": vqc(data, name), "hybrid": hybrid(data, name)}
    out["torch_imported"] = "torch" in sys.modules
    print(json.dumps(out))


if __name__ == "__main__":
    main()
