"""Exact, batched, differentiable statevector simulation in torch, and the circuit layouts the models use.

A state is a tensor of shape ``(batch, 2**n)``: one statevector per row of the batch (a training sample,
or one basis state when a unitary is built column by column). Amplitude ``i`` belongs to the basis state
whose bit ``q`` is qubit ``q`` (Qiskit's little-endian order), so ``Statevector(circuit).data`` and a row
of the state are the same vector. Angles are either one number for the whole batch (a trainable
weight) or one per row (an encoded feature); gradients flow through them with torch's autograd, which is
exact reverse-mode differentiation of the simulation (no parameter shift, no sampling).

Circuits made only of RY and CX/CZ gates keep real amplitudes, so they are simulated in float64; circuits
with RZ or phase gates use complex128. The layouts below follow Qiskit's library circuits gate for gate
and parameter for parameter (``real_amplitudes``, ``efficient_su2``, ``n_local``, ``zz_feature_map``);
:func:`qiskit_ansatz` and :func:`qiskit_feature_map` build those Qiskit circuits for reporting (qubits,
depth, gate counts), and the tests check that both give the same states.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

Tensor = Any  # torch.Tensor (torch is imported inside the functions)

PQC_NAMES: tuple[str, ...] = ("RealAmplitudes", "EfficientSU2", "TwoLocal")


def _torch() -> Any:
    import torch

    return torch


def zero_state(n: int, batch: int, complex_amplitudes: bool = False) -> Tensor:
    """``batch`` copies of |0...0> on ``n`` qubits."""
    torch = _torch()
    dtype = torch.complex128 if complex_amplitudes else torch.float64
    state = torch.zeros((batch, 2**n), dtype=dtype)
    state[:, 0] = 1
    return state


def _angle(angle: Tensor | float) -> Tensor:
    """A batch of angles (shape (batch,)) broadcast against (batch, left, right); a number stays one."""
    torch = _torch()
    if isinstance(angle, torch.Tensor) and angle.dim() == 1:
        return angle.reshape(-1, 1, 1)
    return angle


def apply_1q(state: Tensor, n: int, qubit: int, m00: Any, m01: Any, m10: Any, m11: Any) -> Tensor:
    """Apply the 2x2 matrix [[m00, m01], [m10, m11]] to ``qubit``; entries are numbers or batched angles'
    functions shaped (batch, 1, 1)."""
    torch = _torch()
    batch = state.shape[0]
    view = state.reshape(batch, 2 ** (n - qubit - 1), 2, 2**qubit)
    a0 = view[:, :, 0, :]
    a1 = view[:, :, 1, :]
    return torch.stack((m00 * a0 + m01 * a1, m10 * a0 + m11 * a1), dim=2).reshape(batch, 2**n)


def apply_matrix(state: Tensor, n: int, qubit: int, matrix: Tensor) -> Tensor:
    """Apply a 2x2 matrix (shape (2, 2), or (batch, 2, 2): one per state) to ``qubit``: one matmul."""
    batch = state.shape[0]
    view = state.reshape(batch, 2 ** (n - qubit - 1), 2, 2**qubit)
    if matrix.dtype != state.dtype:
        matrix = matrix.to(state.dtype)
    if matrix.dim() == 3:
        matrix = matrix.reshape(batch, 1, 2, 2)
    return (matrix @ view).reshape(batch, 2**n)


def ry_matrices(theta: Tensor) -> Tensor:
    """RY(theta) for every angle: shape (*theta.shape, 2, 2), real."""
    torch = _torch()
    c, s = torch.cos(theta / 2), torch.sin(theta / 2)
    return torch.stack((torch.stack((c, -s), -1), torch.stack((s, c), -1)), -2)


def rz_matrices(lam: Tensor) -> Tensor:
    """RZ(lam) for every angle: shape (*lam.shape, 2, 2), complex128."""
    torch = _torch()
    minus, plus = torch.polar(torch.ones_like(lam), -lam / 2), torch.polar(torch.ones_like(lam), lam / 2)
    zero = torch.zeros_like(minus)
    return torch.stack((torch.stack((minus, zero), -1), torch.stack((zero, plus), -1)), -2)


def ry_product_state(angles: Tensor) -> Tensor:
    """RY(angles[:, q]) on qubit q of |0...0>, for every row: the product state, shape (batch, 2**n)."""
    half = angles / 2
    c, s = _torch().cos(half), _torch().sin(half)
    batch, n = angles.shape
    state = _torch().stack((c[:, n - 1], s[:, n - 1]), -1)
    for q in range(n - 2, -1, -1):  # qubit 0 is the least significant bit
        pair = _torch().stack((c[:, q], s[:, q]), -1)
        state = (state[:, :, None] * pair[:, None, :]).reshape(batch, -1)
    return state


def _half_angle_cos_sin(theta: Tensor | float) -> tuple[Any, Any]:
    """(cos(theta / 2), sin(theta / 2)): tensors shaped for :func:`apply_1q` for a batch, else numbers."""
    torch = _torch()
    half = _angle(theta) / 2
    if isinstance(half, torch.Tensor):
        return torch.cos(half), torch.sin(half)
    return math.cos(half), math.sin(half)


def ry(state: Tensor, n: int, qubit: int, theta: Tensor | float) -> Tensor:
    c, s = _half_angle_cos_sin(theta)
    return apply_1q(state, n, qubit, c, -s, s, c)


def rx(state: Tensor, n: int, qubit: int, theta: Tensor | float) -> Tensor:
    c, s = _half_angle_cos_sin(theta)
    return apply_1q(state, n, qubit, c, -1j * s, -1j * s, c)


def _phase(lam: Tensor | float) -> Any:
    torch = _torch()
    if isinstance(lam, torch.Tensor):
        return torch.polar(torch.ones_like(lam), lam)
    return complex(math.cos(lam), math.sin(lam))


def rz(state: Tensor, n: int, qubit: int, lam: Tensor | float) -> Tensor:
    half = _angle(lam) / 2
    return apply_1q(state, n, qubit, _phase(-half), 0, 0, _phase(half))


def phase(state: Tensor, n: int, qubit: int, lam: Tensor | float) -> Tensor:
    return apply_1q(state, n, qubit, 1, 0, 0, _phase(_angle(lam)))


def hadamard(state: Tensor, n: int, qubit: int) -> Tensor:
    r = 1 / math.sqrt(2)
    return apply_1q(state, n, qubit, r, r, r, -r)


@lru_cache(maxsize=256)
def _cx_permutation(n: int, control: int, target: int) -> Tensor:
    index = np.arange(2**n)
    flipped = np.where((index >> control) & 1, index ^ (1 << target), index)
    return _torch().as_tensor(flipped, dtype=_torch().long)


@lru_cache(maxsize=256)
def _cz_signs(n: int, a: int, b: int) -> Tensor:
    index = np.arange(2**n)
    signs = np.where(((index >> a) & 1) & ((index >> b) & 1), -1.0, 1.0)
    return _torch().as_tensor(signs, dtype=_torch().float64)


def cx(state: Tensor, n: int, control: int, target: int) -> Tensor:
    return state.index_select(1, _cx_permutation(n, control, target))


def cz(state: Tensor, n: int, a: int, b: int) -> Tensor:
    signs = _cz_signs(n, a, b)
    return state * (signs.to(state.dtype) if state.is_complex() else signs)


@lru_cache(maxsize=64)
def _cx_chain_permutation(n: int) -> Tensor:
    """The CX gates of a ``reverse_linear`` layer, in order, as one permutation of the amplitudes."""
    index = np.arange(2**n)
    for control, target in reverse_linear_pairs(n):
        index = index[
            np.where((np.arange(2**n) >> control) & 1, np.arange(2**n) ^ (1 << target), np.arange(2**n))
        ]
    return _torch().as_tensor(index, dtype=_torch().long)


@lru_cache(maxsize=64)
def _cz_layer_signs(n: int) -> Tensor:
    """CZ on every pair, as one sign per basis state."""
    signs = np.ones(2**n)
    for a, b in full_pairs(n):
        signs = signs * _cz_signs(n, a, b).numpy()
    return _torch().as_tensor(signs, dtype=_torch().float64)


@lru_cache(maxsize=64)
def z_signs(n: int) -> Tensor:
    """(2**n, n): entry (i, q) is <i|Z_q|i> = +1 or -1."""
    index = np.arange(2**n)[:, None]
    bits = (index >> np.arange(n)[None, :]) & 1
    return _torch().as_tensor(1.0 - 2.0 * bits, dtype=_torch().float64)


@lru_cache(maxsize=64)
def parity(n: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Parity (0 or 1) of each basis state's bits."""
    index = np.arange(2**n)
    return np.asarray([bin(int(i)).count("1") % 2 for i in index], dtype=np.int64)


def probabilities(state: Tensor) -> Tensor:
    torch = _torch()
    return state.abs() ** 2 if state.is_complex() else torch.square(state)


def z_expectations(state: Tensor, n: int) -> Tensor:
    """<Z_q> for every qubit, shape (batch, n)."""
    return probabilities(state) @ z_signs(n)


def reverse_linear_pairs(n: int) -> list[tuple[int, int]]:
    """Qiskit's ``reverse_linear`` entanglement: (n-2, n-1), (n-3, n-2), ..., (0, 1)."""
    return [(i, i + 1) for i in range(n - 2, -1, -1)]


def full_pairs(n: int) -> list[tuple[int, int]]:
    return list(itertools.combinations(range(n), 2))


@dataclass(frozen=True)
class Ansatz:
    """A trainable layered circuit: ``reps`` times (rotation layer, entanglement layer), then a final
    rotation layer, as Qiskit's two-local circuits lay them out.

    - ``RealAmplitudes``: RY rotations, CX in ``reverse_linear`` order (Qiskit's default);
    - ``EfficientSU2``: RY then RZ rotations, CX ``reverse_linear``;
    - ``TwoLocal``: RY rotations, CZ between every pair (``n_local(n, "ry", "cz", "full", reps)``).
    """

    name: str
    qubits: int
    reps: int

    def __post_init__(self) -> None:
        if self.name not in PQC_NAMES:
            raise ValueError(f"unknown PQC {self.name!r}; expected one of {', '.join(PQC_NAMES)}")
        if self.qubits < 1 or self.reps < 0:
            raise ValueError(
                f"an ansatz needs at least one qubit and reps >= 0, got {self.qubits}, {self.reps}"
            )

    @property
    def rotations(self) -> tuple[str, ...]:
        return ("ry", "rz") if self.name == "EfficientSU2" else ("ry",)

    @property
    def complex_amplitudes(self) -> bool:
        return "rz" in self.rotations

    @property
    def num_parameters(self) -> int:
        return (self.reps + 1) * len(self.rotations) * self.qubits

    def apply(self, state: Tensor, weights: Tensor) -> Tensor:
        """Apply the circuit with ``weights`` (shape (num_parameters,)) to every state of the batch.

        Gate for gate as Qiskit lays it out, with fewer tensor operations: each qubit's rotations of a
        layer are one 2x2 matrix (RZ·RY for EfficientSU2), and an entanglement layer is one permutation
        of the amplitudes (the CX chain) or one sign vector (the CZs)."""
        n = self.qubits
        per_layer = len(self.rotations) * n
        if self.complex_amplitudes and not state.is_complex():
            state = state.to(_torch().complex128)
        for layer in range(self.reps + 1):
            block = weights[layer * per_layer : (layer + 1) * per_layer]
            matrices = ry_matrices(block[:n])
            if self.name == "EfficientSU2":
                matrices = rz_matrices(block[n:]) @ matrices.to(_torch().complex128)
            for q in range(n):
                state = apply_matrix(state, n, q, matrices[q])
            if layer == self.reps:
                break
            if self.name == "TwoLocal":
                state = state * _cz_layer_signs(n).to(state.dtype)
            else:
                state = state.index_select(1, _cx_chain_permutation(n))
        return state

    def apply_gates(self, state: Tensor, weights: Tensor) -> Tensor:
        """The same circuit one gate at a time (the reference :meth:`apply` is tested against)."""
        n = self.qubits
        k = 0
        for layer in range(self.reps + 1):
            for gate in self.rotations:
                for q in range(n):
                    state = ry(state, n, q, weights[k]) if gate == "ry" else rz(state, n, q, weights[k])
                    k += 1
            if layer == self.reps:
                break
            if self.name == "TwoLocal":
                for a, b in full_pairs(n):
                    state = cz(state, n, a, b)
            else:
                for control, target in reverse_linear_pairs(n):
                    state = cx(state, n, control, target)
        return state

    def unitary(self, weights: Tensor) -> Tensor:
        """The circuit's matrix U (2**n x 2**n, U[:, j] = U|j>), built by applying it to every basis state."""
        torch = _torch()
        dim = 2**self.qubits
        dtype = torch.complex128 if self.complex_amplitudes else torch.float64
        basis = torch.eye(dim, dtype=dtype)
        return self.apply(basis, weights).T  # row j of apply(...) is U|j>

    def qiskit_circuit(self) -> Any:
        return qiskit_ansatz(self.name, self.qubits, self.reps)


def qiskit_ansatz(name: str, qubits: int, reps: int) -> Any:
    """The Qiskit library circuit the :class:`Ansatz` of the same name simulates."""
    from qiskit.circuit.library import efficient_su2, n_local, real_amplitudes

    if name == "RealAmplitudes":
        return real_amplitudes(qubits, reps=reps)
    if name == "EfficientSU2":
        return efficient_su2(qubits, reps=reps)
    if name == "TwoLocal":
        return n_local(qubits, "ry", "cz", entanglement="full", reps=reps)
    raise ValueError(f"unknown PQC {name!r}; expected one of {', '.join(PQC_NAMES)}")


def zz_feature_map_states(x: np.ndarray[Any, Any], reps: int = 2) -> Tensor:
    """Qiskit's ``zz_feature_map(n, reps, entanglement="full", alpha=2)`` applied to |0...0> for every row
    of ``x`` (shape (rows, n)): per repetition H on every qubit, P(2 x_i) on qubit i, then for each pair
    (i, j): CX(i, j), P(2 (pi - x_i)(pi - x_j)) on j, CX(i, j). complex128, shape (rows, 2**n)."""
    torch = _torch()
    values = torch.as_tensor(np.asarray(x, dtype=np.float64))
    rows, n = values.shape
    state = zero_state(n, rows, complex_amplitudes=True)
    for _ in range(reps):
        for q in range(n):
            state = hadamard(state, n, q)
        for q in range(n):
            state = phase(state, n, q, 2.0 * values[:, q])
        for i, j in full_pairs(n):
            state = cx(state, n, i, j)
            state = phase(state, n, j, 2.0 * (math.pi - values[:, i]) * (math.pi - values[:, j]))
            state = cx(state, n, i, j)
    return state


def qiskit_feature_map(qubits: int, reps: int = 2) -> Any:
    from qiskit.circuit.library import zz_feature_map

    return zz_feature_map(qubits, reps=reps, entanglement="full")


def circuit_summary(circuit: Any) -> dict[str, Any]:
    """Qubits, depth, parameter and gate counts of a Qiskit circuit (decomposed to its basic gates)."""
    flat = circuit.decompose(reps=3)
    counts = {str(k): int(v) for k, v in flat.count_ops().items()}
    two_qubit = sum(1 for inst in flat.data if inst.operation.num_qubits == 2)
    return {
        "qubits": int(circuit.num_qubits),
        "depth": int(flat.depth()),
        "parameters": int(circuit.num_parameters),
        "gate_counts": counts,
        "two_qubit_gates": int(two_qubit),
    }
