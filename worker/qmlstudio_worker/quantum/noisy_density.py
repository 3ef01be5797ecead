"""Differentiable noisy simulation: a device-transpiled circuit and its noise as a torch density matrix.

:mod:`.backends` runs a model's circuit under a device's noise on Aer (density matrix, shots): the right
numbers, but no gradient. :func:`compile_noisy` turns the same compact ISA circuit and the same Aer noise
model into a :class:`NoisyDensityProgram`, a batched density-matrix simulation in torch (complex128):

- every ISA gate is applied as its unitary (``sx``, ``x``, ``ecr``, ``cz``, ``id`` ... from
  ``qiskit.quantum_info.Operator``; ``rz``/``p`` as a diagonal phase, ``rx``/``ry`` batched), then the
  gate's ``QuantumError`` of the noise model on those qubits as a channel (its ``SuperOp``, precomputed);
  a fixed gate and its error are one superoperator, and runs of fixed one-qubit operations (and of
  noiseless ``rz`` on one qubit) are merged;
- rotation angles are the transpiler's ``ParameterExpression`` of the model's parameters. Linear ones,
  ``c0 + sum_i c_i p_i`` (checked with the expression's gradient: every angle of a transpiled ansatz), are
  one matrix product for all gates; others (the ZZ feature map's ``2 (pi - x_i)(pi - x_j)``) are evaluated
  in torch from the expression's sympy form, and one torch cannot evaluate is a :class:`NoisyDensityError`;
- the measurement is the diagonal of the final density matrix, marginalized to the measured qubits,
  reordered to the classical bits (index bit c = clbit c = qubit c of the MODEL, the layout of
  ``NoisyCircuit.probabilities``) and passed through each qubit's readout assignment matrix.

The result is the EXACT distribution of the noisy channel (what infinitely many shots would give), and it
is differentiable with autograd with respect to the parameter values (rows, parameters). The tests compare
it with Aer's density-matrix simulation of the same circuit and noise (to 1e-10) and its gradients with
finite differences.

Memory: a density matrix of n qubits has 4**n entries (16 bytes each) per row, and autograd keeps one per
operation; :meth:`NoisyDensityProgram.probabilities` therefore checkpoints the program in segments
(``torch.utils.checkpoint``: the forward pass is recomputed during backward) and runs the rows in chunks.
Noisy TRAINING is limited per use (:data:`NOISY_TRAINING_LIMITS`: the hybrid's mini-batches 8 qubits, the
VQC's every-row ADAM steps 6, portfolio's and routing's one-row ADAM steps 10;
:func:`check_noisy_training_qubits`), measured on this 2-core machine (docs in the constant).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Tensor = Any  # torch.Tensor (torch is imported inside the functions)

#: Noisy training (gradients through the density matrix) stops being practical above a number of active
#: qubits that depends on how many rows one training step simulates: the one table of the limits
#: (:func:`check_noisy_training_qubits`), measured on this machine (2 cores shared with other jobs, load
#: about 4 to 5; one torch thread):
#:
#: - ``"hybrid"``: the hybrid forecaster, mini-batches of up to 32 windows forward and backward per epoch.
#:   8 qubits: 0.85 GB, 24 s per 32 windows (the stock example's 50 windows: 16.7 s per epoch); 9 qubits:
#:   3.5 GB and 124 s per 32 windows (:data:`NOISY_TRAINING_COST`), refused.
#: - ``"rows"``: ADAM of the fraud VQC, every training row (up to 200 under noise) at every step. 6 qubits:
#:   0.39 s per 32 rows, about 2.4 s per step of 200 rows; 7 qubits about 27 s per step, refused.
#: - ``"one_row"``: ADAM of portfolio and routing, one parameter row per step (:data:`NOISY_STEP_COST`).
#:   10 qubits: about 6 s and 0.9 GB per step (100 steps: about 10 minutes); 12 qubits did not finish
#:   two steps in 400 s, refused. The routing sample (14 to 15 active qubits) is refused: one 14-qubit
#:   density matrix alone is 4.3 GB (16 bytes x 4**14), and every operation writes a new one.
NOISY_TRAINING_LIMITS: dict[str, int] = {"hybrid": 8, "rows": 6, "one_row": 10}
#: Measured as above, the hybrid QNN's layer (RealAmplitudes reps 2) on fake_kyiv, 32 rows forward and
#: backward: qubits -> (extra peak memory in GB, seconds). 4 qubits: 0.03 GB, 0.06 s. Every further qubit
#: multiplies the work by about 4 to 5 (4**n entries per row). The stock example (50 training windows)
#: takes 0.6 s per epoch at 6 qubits and 16.7 s at 8.
NOISY_TRAINING_COST: dict[int, tuple[float, float]] = {
    6: (0.29, 0.39),
    7: (0.41, 4.3),
    8: (0.85, 24.0),
    9: (3.5, 124.0),
}
#: The same for ONE row forward and backward (an ADAM step of portfolio or routing; RealAmplitudes reps 2
#: on fake_kyiv): qubits -> (extra peak memory in GB, seconds).
NOISY_STEP_COST: dict[int, tuple[float, float]] = {
    8: (0.28, 0.2),
    9: (0.95, 1.4),
    10: (0.85, 6.1),  # checkpointed (recomputed during backward): less memory than 9 qubits
}
#: Aer leaves out the terms of a QuantumError whose probability is below this (its C++ QuantumError
#: threshold); the program does the same so that it computes what Aer runs.
AER_ERROR_THRESHOLD = 1e-10
#: Checkpoint the program (recompute it during backward) when autograd would keep more bytes than this.
CHECKPOINT_BYTES = 256 * 2**20
#: Rows per chunk of one forward/backward pass (bounds the memory of one pass).
ROWS_PER_CHUNK = 32

NOISY_TRAINING_LIMIT = (
    "Noisy training of {qubits} qubits (after transpiling for the device) needs about {gb} GB and "
    "{seconds} s {per} on this machine: it simulates the density matrix of every qubit. {what} allows "
    "at most {limit} qubits: {choose}."
)
#: Per use of the limit: (what is limited, the unit of the time quoted, what the user can choose instead).
_LIMIT_WORDS: dict[str, tuple[str, str, str]] = {
    "hybrid": (
        "Noisy training of the hybrid network",
        "per epoch of {rows:,} rows",
        "choose {limit} or fewer qubits, or train without a noise model",
    ),
    "rows": (
        "ADAM under a noise model (every training row per step)",
        "per step of {rows:,} rows",
        "choose {limit} or fewer qubits, COBYLA or SPSA (they measure the noisy circuits on Aer), or "
        "train without a noise model",
    ),
    "one_row": (
        "ADAM under a noise model (one row per step)",
        "per step (one row)",
        "choose COBYLA or SPSA (they measure the noisy circuits on Aer), a smaller problem, or train "
        "without a noise model",
    ),
}


class NoisyDensityError(ValueError):
    """A circuit or noise model the noisy density simulation cannot compile, in words for the user."""


def noisy_training_cost(qubits: int, rows: int, use: str = "rows") -> tuple[float, float]:
    """(GB, seconds) one pass over ``rows`` rows (forward and backward) needs here, from the measurements of
    :data:`NOISY_TRAINING_COST` (32 rows) or, for ``use`` "one_row", :data:`NOISY_STEP_COST` (beyond them,
    times 4 per qubit)."""
    table, measured_rows = (NOISY_STEP_COST, 1) if use == "one_row" else (NOISY_TRAINING_COST, 32)
    known = max(n for n in table if n <= max(qubits, min(table)))
    gb, seconds = table[known]
    scale = 4.0 ** (qubits - known)
    return gb * scale, seconds * scale * max(rows, 1) / measured_rows


def check_noisy_training_qubits(qubits: int, rows: int = 32, use: str = "rows") -> None:
    """Refuse noisy training above ``NOISY_TRAINING_LIMITS[use]`` active qubits, with what it would cost
    for ``rows`` rows per epoch (the hybrid) or per ADAM step."""
    if use not in NOISY_TRAINING_LIMITS:
        raise ValueError(
            f"unknown noisy training use {use!r}; expected one of {', '.join(NOISY_TRAINING_LIMITS)}"
        )
    limit = NOISY_TRAINING_LIMITS[use]
    if qubits <= limit:
        return
    gb, seconds = noisy_training_cost(qubits, rows, use)
    what, per, choose = _LIMIT_WORDS[use]
    raise NoisyDensityError(
        NOISY_TRAINING_LIMIT.format(
            qubits=qubits,
            gb=f"{gb:,.0f}" if gb >= 10 else f"{gb:.2g}",
            seconds=f"{seconds:,.0f}",
            per=per.format(rows=rows),
            what=what,
            limit=limit,
            choose=choose.format(limit=limit),
        )
    )


# ----------------------------------------------------------------------------------------------------
# Operations of a compiled program. Qubits are those of the compact circuit (0..n-1).


@dataclass
class _Superop:
    """A fixed channel (a gate and its error, or several merged) on ``qubits`` (qubits[0] least significant),
    in Qiskit's column-stacking superoperator convention."""

    qubits: tuple[int, ...]
    matrix: np.ndarray[Any, Any]


@dataclass
class _Formula:
    """A non-linear angle term: ``function`` of the value columns ``columns`` (torch in, torch out)."""

    function: Any
    columns: list[int]
    text: str


@dataclass
class _Phase:
    """A diagonal rotation rz(angle) on ``qubit``; angle = offset + values @ coefficients + formulas."""

    qubit: int
    offset: float
    coefficients: np.ndarray[Any, Any]  # (parameters,)
    formulas: list[_Formula] = field(default_factory=list)


@dataclass
class _Rotation:
    """rx or ry(angle) on ``qubit`` (batched unitary), angle as in :class:`_Phase`, then ``error``."""

    kind: str
    qubit: int
    offset: float
    coefficients: np.ndarray[Any, Any]
    error: np.ndarray[Any, Any] | None
    formulas: list[_Formula] = field(default_factory=list)


_Op = _Superop | _Phase | _Rotation


def _formula(value: Any, parameters: Sequence[Any], gate: str) -> _Formula:
    """A non-linear angle (the ZZ feature map's 2 (pi - x_i)(pi - x_j)) as a torch function of its value
    columns, through the expression's sympy form (arithmetic and the usual functions)."""
    import sympy  # type: ignore[import-untyped]
    import torch

    expression = value.sympify()
    by_name = {str(p): i for i, p in enumerate(parameters)}
    symbols = sorted(expression.free_symbols, key=str)
    functions = {"sin": torch.sin, "cos": torch.cos, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt}
    function = sympy.lambdify(symbols, expression, modules=[functions, "math"])
    formula = _Formula(function, [by_name[str(sym)] for sym in symbols], str(value))
    try:  # checked once here: an expression torch cannot evaluate is refused before training
        probe = function(*(torch.zeros(1, dtype=torch.float64) for _ in symbols))
        torch.as_tensor(probe, dtype=torch.float64)
    except Exception as exc:
        raise NoisyDensityError(f"the {gate} angle {value} cannot be evaluated in torch: {exc}") from None
    return formula


def _angle(
    value: Any, parameters: Sequence[Any], gate: str
) -> tuple[float, np.ndarray[Any, Any], list[_Formula]]:
    """(c0, c, formulas): angle = c0 + sum c_i p_i (+ formulas when it is not linear) for a gate parameter
    (a number or a ParameterExpression of the model's parameters). Linear angles (every angle of a
    transpiled ansatz) are one matrix product for all gates; others are evaluated term by term."""
    from qiskit.circuit import ParameterExpression

    coefficients = np.zeros(len(parameters), dtype=np.float64)
    if not isinstance(value, ParameterExpression):
        return float(value), coefficients, []
    position = {p: i for i, p in enumerate(parameters)}
    for p in value.parameters:
        if p not in position:
            raise NoisyDensityError(
                f"the {gate} angle {value} uses the parameter {p}, which is not the model's"
            )
    for p in value.parameters:
        slope = value.gradient(p)
        if isinstance(slope, ParameterExpression):
            if slope.parameters:
                return 0.0, np.zeros(len(parameters)), [_formula(value, parameters, gate)]
            slope = complex(slope)
        slope = complex(slope)
        if abs(slope.imag) > 1e-12:
            raise NoisyDensityError(f"the {gate} angle {value} is not real")
        coefficients[position[p]] = slope.real
    offset = complex(value.bind(dict.fromkeys(value.parameters, 0.0), allow_unknown_parameters=True))
    return offset.real, coefficients, []


def _superop(matrix_or_channel: Any) -> np.ndarray[Any, Any]:
    from qiskit.quantum_info import SuperOp

    return np.asarray(SuperOp(matrix_or_channel).data, dtype=np.complex128)


def _error_superop(error: Any) -> np.ndarray[Any, Any]:
    """The channel Aer applies for a QuantumError: its terms (circuit, probability) summed as superoperators,
    leaving out terms below :data:`AER_ERROR_THRESHOLD` as Aer does (measured: with them the channel differs
    from Aer's by up to 5e-10 on fake_torino's cz errors; without them by 1e-17)."""
    from qiskit.quantum_info import SuperOp

    total: np.ndarray[Any, Any] | None = None
    for circuit, probability in zip(error.circuits, error.probabilities, strict=True):
        if probability < AER_ERROR_THRESHOLD:
            continue
        term = float(probability) * np.asarray(SuperOp(circuit).data, dtype=np.complex128)
        total = term if total is None else total + term
    if total is None:
        raise NoisyDensityError("a quantum error of the noise model has no term above Aer's threshold")
    return total


def _gate_error(noise: Any, name: str, qubits: tuple[int, ...]) -> Any | None:
    """The QuantumError Aer applies after ``name`` on ``qubits``: the local one, else the all-qubit one."""
    local = getattr(noise, "_local_quantum_errors", {})
    if name in local and qubits in local[name]:
        return local[name][qubits]
    default = getattr(noise, "_default_quantum_errors", {})
    return default.get(name)


def _readout(noise: Any, qubit: int) -> np.ndarray[Any, Any] | None:
    """The assignment matrix P[true, measured] of ``qubit``'s readout error, None without one."""
    local = getattr(noise, "_local_readout_errors", {})
    error = local.get((qubit,), getattr(noise, "_default_readout_error", None))
    if error is None:
        return None
    matrix = np.asarray(error.probabilities, dtype=np.float64)
    if matrix.shape != (2, 2):
        raise NoisyDensityError("only single-qubit readout errors are supported by the noisy simulation")
    return matrix


def _compose_1q(first: _Superop, then: _Superop) -> _Superop:
    return _Superop(first.qubits, then.matrix @ first.matrix)


@dataclass
class NoisyDensityProgram:
    """A compiled noisy circuit: ``probabilities(values)`` (rows, 2**clbits), differentiable in ``values``."""

    qubits: int  # active (compact) qubits simulated
    clbits: int
    parameters: list[Any]  # the model's parameter order (columns of ``values``)
    ops: list[_Op]
    measured: list[int]  # clbit c <- compact qubit measured[c]
    readout: list[np.ndarray[Any, Any] | None]  # per clbit
    gate_count: int
    segments: int = 0  # checkpoint segments (0: chosen from the op count)
    rows_per_chunk: int = ROWS_PER_CHUNK
    _tensors: dict[str, Any] = field(default_factory=dict, repr=False)
    seconds: float = 0.0
    rows_run: int = 0

    # --- tensors, built once per dtype/device ---------------------------------------------------------
    def _prepared(self) -> dict[str, Any]:
        import torch

        if not self._tensors:
            phases = [op for op in self.ops if isinstance(op, _Phase | _Rotation)]
            self._tensors["offsets"] = torch.tensor([op.offset for op in phases], dtype=torch.float64)
            self._tensors["formulas"] = [(j, op.formulas) for j, op in enumerate(phases) if op.formulas]
            self._tensors["coefficients"] = torch.as_tensor(
                np.stack([op.coefficients for op in phases], axis=1)
                if phases
                else np.zeros((len(self.parameters), 0)),
                dtype=torch.float64,
            )
            self._tensors["superops"] = [
                torch.as_tensor(op.matrix, dtype=torch.complex128) if isinstance(op, _Superop) else None
                for op in self.ops
            ]
            self._tensors["errors"] = [
                torch.as_tensor(op.error, dtype=torch.complex128)
                if isinstance(op, _Rotation) and op.error is not None
                else None
                for op in self.ops
            ]
            self._tensors["readout"] = [
                torch.as_tensor(m, dtype=torch.float64) if m is not None else None for m in self.readout
            ]
        return self._tensors

    # --- the simulation ------------------------------------------------------------------------------
    # The density matrix of a chunk is a tensor (rows, 2, ..., 2) with one axis per row bit and per column
    # bit of every qubit. Its axis order (``layout``: logical axis per tensor dimension after the rows; row
    # bit of qubit q is q, column bit is n + q) changes as operations run: an operation moves its axes last
    # (one copy) and its result stays in that order, instead of copying back (about a third fewer passes
    # over the matrix; the order is restored once, at the measurement).

    def _apply(self, rho: Tensor, layout: list[int], matrix: Tensor, axes: Sequence[int]) -> Tensor:
        """Apply ``matrix`` (d, d) or (rows, d, d) on logical ``axes`` listed least significant first;
        ``layout`` is updated in place."""
        targets = list(reversed(axes))
        others = [a for a in layout if a not in targets]
        dims = [1 + layout.index(a) for a in others + targets]
        moved = rho.permute([0, *dims])
        flat = moved.reshape(moved.shape[0], -1, 2 ** len(axes))
        out = flat @ matrix.transpose(-1, -2)
        layout[:] = others + targets
        return out.reshape(moved.shape)

    def _channel(self, rho: Tensor, layout: list[int], matrix: Tensor, qubits: Sequence[int]) -> Tensor:
        n = self.qubits
        return self._apply(rho, layout, matrix, [*qubits, *(n + q for q in qubits)])

    def _run_ops(
        self, rho: Tensor, angles: Tensor, start: int, stop: int, first_angle: int, layout: list[int]
    ) -> Tensor:
        import torch

        tensors = self._prepared()
        n = self.qubits
        k = first_angle
        batch = rho.shape[0]
        for index in range(start, stop):
            op = self.ops[index]
            if isinstance(op, _Superop):
                rho = self._channel(rho, layout, tensors["superops"][index], op.qubits)
                continue
            theta = angles[:, k]
            k += 1
            if isinstance(op, _Phase):
                # rz: rho[i, j] *= e^{-i theta/2 (z_i - z_j)}: 1 on equal bits, e^{-+ i theta} otherwise
                one = torch.ones_like(theta, dtype=torch.complex128)
                minus = torch.polar(torch.ones_like(theta), -theta)
                plus = torch.polar(torch.ones_like(theta), theta)
                factor = torch.stack((torch.stack((one, minus), -1), torch.stack((plus, one), -1)), -2)
                row, col = 1 + layout.index(op.qubit), 1 + layout.index(n + op.qubit)
                if row > col:
                    factor = factor.transpose(-1, -2)
                shape = [batch] + [1] * (2 * n)
                shape[row] = shape[col] = 2
                rho = rho * factor.reshape(shape)
                continue
            c, s = torch.cos(theta / 2).to(torch.complex128), torch.sin(theta / 2).to(torch.complex128)
            if op.kind == "rx":
                u = torch.stack((torch.stack((c, -1j * s), -1), torch.stack((-1j * s, c), -1)), -2)
            else:
                u = torch.stack((torch.stack((c, -s), -1), torch.stack((s, c), -1)), -2)
            rho = self._apply(rho, layout, u, [op.qubit])
            rho = self._apply(rho, layout, u.conj(), [n + op.qubit])
            error = tensors["errors"][index]
            if error is not None:
                rho = self._channel(rho, layout, error, [op.qubit])
        return rho

    def _checkpointing(self, batch: int) -> bool:
        """Checkpoint when autograd would keep more than ``CHECKPOINT_BYTES`` of density matrices."""
        return bool(batch * 16 * 4**self.qubits * len(self.ops) > CHECKPOINT_BYTES)

    def _forward(self, values: Tensor) -> Tensor:
        import torch

        tensors = self._prepared()
        batch, n = values.shape[0], self.qubits
        angles = tensors["offsets"] + values @ tensors["coefficients"]
        if tensors["formulas"]:
            columns = list(angles.unbind(1))
            for j, formulas in tensors["formulas"]:
                for f in formulas:
                    columns[j] = columns[j] + f.function(*(values[:, c] for c in f.columns))
            angles = torch.stack(columns, 1)
        rho = torch.zeros((batch, *([2] * (2 * n))), dtype=torch.complex128)
        rho.reshape(batch, -1)[:, 0] = 1
        # logical axes, most significant first: row bits n-1..0, then column bits 2n-1..n
        layout = [*range(n - 1, -1, -1), *range(2 * n - 1, n - 1, -1)]
        first_angle = [0]
        for op in self.ops:
            first_angle.append(first_angle[-1] + (0 if isinstance(op, _Superop) else 1))
        if torch.is_grad_enabled() and values.requires_grad and self._checkpointing(batch):
            from torch.utils.checkpoint import checkpoint

            segments = self.segments or max(1, int(math.sqrt(len(self.ops))))
            bounds = np.linspace(0, len(self.ops), segments + 1).astype(int)
            for a, b in itertools.pairwise(bounds):
                entry = list(layout)

                def segment(
                    x: Tensor, y: Tensor, a: int = int(a), b: int = int(b), entry: list[int] = entry
                ) -> Tensor:
                    local = list(entry)  # the recomputation during backward starts from the same order
                    out = self._run_ops(x, y, a, b, first_angle[a], local)
                    layout[:] = local
                    return out

                rho = checkpoint(segment, rho, angles, use_reentrant=False)
        else:
            rho = self._run_ops(rho, angles, 0, len(self.ops), 0, layout)
        canonical = [*range(n - 1, -1, -1), *range(2 * n - 1, n - 1, -1)]
        rho = rho.permute([0, *(1 + layout.index(a) for a in canonical)])
        diagonal = torch.diagonal(rho.reshape(batch, 2**n, 2**n), dim1=-2, dim2=-1).real
        p = diagonal.reshape(batch, *([2] * n))
        # marginalize unmeasured qubits, then order the axes as clbits k-1 .. 0 (most significant first)
        unmeasured = [1 + (n - 1 - q) for q in range(n) if q not in self.measured]
        if unmeasured:
            p = p.sum(dim=unmeasured)
        remaining = [q for q in range(n - 1, -1, -1) if q in self.measured]  # kept axes in order
        position = {q: 1 + i for i, q in enumerate(remaining)}
        p = p.permute([0, *[position[self.measured[c]] for c in range(self.clbits - 1, -1, -1)]])
        k = self.clbits
        for c, matrix in enumerate(tensors["readout"]):
            if matrix is None:
                continue
            axis = 1 + (k - 1 - c)
            p = torch.movedim(torch.movedim(p, axis, -1) @ matrix, -1, axis)
        return p.reshape(batch, 2**k)

    def probabilities(self, values: Tensor) -> Tensor:
        """The exact measured distribution (rows, 2**clbits) of the noisy circuit for every row of
        ``values`` (rows, len(parameters)), float64, differentiable with respect to ``values``."""
        import torch

        values = torch.as_tensor(values, dtype=torch.float64)
        if values.dim() == 1:
            values = values.reshape(1, -1)
        if values.shape[1] != len(self.parameters):
            raise ValueError(
                f"expected {len(self.parameters)} parameter values per row, got {values.shape[1]}"
            )
        started = time.monotonic()
        chunks = [
            self._forward(values[i : i + self.rows_per_chunk])
            for i in range(0, values.shape[0], self.rows_per_chunk)
        ]
        self.seconds += time.monotonic() - started
        self.rows_run += int(values.shape[0])
        return torch.cat(chunks, dim=0) if chunks else torch.zeros((0, 2**self.clbits), dtype=torch.float64)

    def training_summary(self, optimizer: str = "ADAM") -> dict[str, Any]:
        """The result's ``noisy_training`` entry: how the model trained on this channel and what it cost."""
        return {
            "method": "exact noisy channel (density matrix, infinite-shot expectation), autograd gradients "
            f"for {optimizer}",
            "active_qubits": self.qubits,
            "isa_gates": self.gate_count,
            "operations_after_merging": len(self.ops),
            "rows_simulated": self.rows_run,
            "simulation_seconds": round(self.seconds, 3),
        }

    def describe(self) -> str:
        return (
            f"exact noisy channel (torch density matrix of {self.qubits} qubits, the device's gate and "
            "readout errors, autograd gradients; the infinite-shot expectation)"
        )


_PHASE_GATES = ("rz", "p", "u1")
_ROTATIONS = ("rx", "ry")


class _Compiler:
    """Builds the op list of a circuit: phases merged per qubit, error-free one-qubit gates fused."""

    def __init__(self, circuit: Any, noise: Any, parameters: list[Any]) -> None:
        self.circuit, self.noise, self.params = circuit, noise, parameters
        self.ops: list[_Op] = []
        self.last: dict[int, int] = {}  # qubit -> index in ops of the last op on it (for merging)
        self.measured: dict[int, int] = {}  # clbit -> qubit
        self.gates = 0
        # id(QuantumError) -> its superoperator: a gate on the same qubits has the same error object in the
        # noise model, and a circuit repeats its gates (the noise model outlives the compilation).
        self.error_superops: dict[int, np.ndarray[Any, Any]] = {}

    def measure(self, inst: Any, qubits: tuple[int, ...]) -> None:
        clbit = self.circuit.find_bit(inst.clbits[0]).index
        if clbit in self.measured:
            raise NoisyDensityError(f"classical bit {clbit} is measured twice")
        if _gate_error(self.noise, "measure", qubits) is not None:
            raise NoisyDensityError("quantum errors on the measurement are not supported")
        self.measured[clbit] = qubits[0]

    def gate(self, inst: Any, qubits: tuple[int, ...]) -> None:
        name = inst.operation.name
        if any(q in self.measured.values() for q in qubits):
            raise NoisyDensityError(
                f"a {name} gate follows a measurement; only final measurements are supported"
            )
        if inst.clbits or getattr(inst.operation, "condition", None) is not None:
            raise NoisyDensityError(f"the classically controlled {name} is not supported")
        self.gates += 1
        error = _gate_error(self.noise, name, qubits)
        error_superop = None
        if error is not None:
            error_superop = self.error_superops.get(id(error))
            if error_superop is None:
                error_superop = self.error_superops[id(error)] = _error_superop(error)
        if name in _PHASE_GATES and error_superop is None:
            self._phase(inst, qubits[0])
        elif any(hasattr(p, "parameters") for p in inst.operation.params):
            self._rotation(inst, qubits[0], error_superop)
        else:
            self._fixed(inst, qubits, error_superop)

    def _phase(self, inst: Any, q: int) -> None:
        offset, coefficients, formulas = _angle(inst.operation.params[0], self.params, inst.operation.name)
        previous = self.ops[self.last[q]] if q in self.last else None
        if isinstance(previous, _Phase) and previous.qubit == q:
            previous.offset += offset
            previous.coefficients = previous.coefficients + coefficients
            previous.formulas = previous.formulas + formulas
        else:
            self.ops.append(_Phase(q, offset, coefficients, formulas))
            self.last[q] = len(self.ops) - 1

    def _rotation(self, inst: Any, q: int, error_superop: Any) -> None:
        name = inst.operation.name
        if name not in _ROTATIONS:
            raise NoisyDensityError(
                f"the parameterized gate {name} is not supported by the noisy simulation "
                f"(supported: {', '.join(_PHASE_GATES + _ROTATIONS)} without error)"
            )
        offset, coefficients, formulas = _angle(inst.operation.params[0], self.params, name)
        self.ops.append(_Rotation(name, q, offset, coefficients, error_superop, formulas))
        self.last[q] = len(self.ops) - 1

    def _fixed(self, inst: Any, qubits: tuple[int, ...], error_superop: Any) -> None:
        from qiskit.quantum_info import Operator

        try:
            unitary = Operator(inst.operation).data
        except Exception as exc:
            raise NoisyDensityError(
                f"the gate {inst.operation.name} has no matrix for the noisy simulation: {exc}"
            ) from None
        matrix = _superop(Operator(unitary))
        if error_superop is not None:
            matrix = error_superop @ matrix
        op = _Superop(qubits, matrix)
        if len(qubits) == 1:
            q = qubits[0]
            previous = self.ops[self.last[q]] if q in self.last else None
            if isinstance(previous, _Superop) and previous.qubits == qubits:
                self.ops[self.last[q]] = _compose_1q(previous, op)
                return
        self.ops.append(op)
        for q in qubits:
            self.last[q] = len(self.ops) - 1


def compile_noisy(circuit: Any, noise: Any, parameters: Sequence[Any]) -> NoisyDensityProgram:
    """Compile a measured compact ISA circuit and its Aer ``NoiseModel`` (quantum errors after each gate,
    readout errors at the measurement: what Aer applies) into a :class:`NoisyDensityProgram` whose value
    columns follow ``parameters``."""
    params = list(parameters)
    compiler = _Compiler(circuit, noise, params)
    for inst in circuit.data:
        qubits = tuple(circuit.find_bit(q).index for q in inst.qubits)
        if inst.operation.name == "measure":
            compiler.measure(inst, qubits)
        elif inst.operation.name != "barrier":
            compiler.gate(inst, qubits)
    k = int(circuit.num_clbits)
    if sorted(compiler.measured) != list(range(k)):
        raise NoisyDensityError("every classical bit must be measured exactly once")
    order = [compiler.measured[c] for c in range(k)]
    return NoisyDensityProgram(
        qubits=int(circuit.num_qubits),
        clbits=k,
        parameters=params,
        ops=compiler.ops,
        measured=order,
        readout=[_readout(noise, q) for q in order],
        gate_count=compiler.gates,
    )


def from_noisy_circuit(noisy: Any) -> NoisyDensityProgram:
    """The program of a :class:`.backends.NoisyCircuit`: its compact ISA circuit and its simulator's noise."""
    return compile_noisy(noisy.circuit, noisy.simulator.options.noise_model, noisy.parameters)


def compile_for_backend(
    circuit: Any, parameters: Sequence[Any], backend: Any, seed: int
) -> tuple[NoisyDensityProgram, Any, list[int]]:
    """Transpile ``circuit`` (measured here) for ``backend`` exactly as :func:`.backends.prepare_noisy`
    does (same pass manager and seed), keep its active qubits, and build the noise of ``backend.target``
    (a device's own calibration) with the same builder.

    Returns (program, compact circuit, physical qubits)."""
    from qiskit.transpiler import generate_preset_pass_manager

    from qmlstudio_worker.quantum.backends import _compact, _device_noise
    from qmlstudio_worker.quantum.devices import OPTIMIZATION_LEVEL

    measured = circuit.copy()
    measured.measure_all()
    manager = generate_preset_pass_manager(
        optimization_level=OPTIMIZATION_LEVEL, backend=backend, seed_transpiler=seed
    )
    compact, physical = _compact(manager.run(measured))
    return compile_noisy(compact, _device_noise(backend, physical), parameters), compact, physical
