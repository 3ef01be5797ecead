"""The differentiable noisy density-matrix simulation against Aer's density-matrix simulation of the same
compact ISA circuit and noise (no shots: saved probabilities, then the readout assignment matrices), its
gradients against finite differences, and its refusals."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch
from qiskit import QuantumCircuit
from qiskit.circuit import Parameter
from qiskit_aer import AerSimulator
from qiskit_aer.noise import NoiseModel

from qmlstudio_worker.quantum import noisy_density
from qmlstudio_worker.quantum.backends import NoisyCircuit, _device_noise, fake_backend, prepare_noisy
from qmlstudio_worker.quantum.hybrid import qiskit_circuit
from qmlstudio_worker.quantum.noisy_density import (
    NoisyDensityError,
    check_noisy_training_qubits,
    compile_for_backend,
    compile_noisy,
    from_noisy_circuit,
)


@functools.cache
def _noisy(device: str, qubits: int) -> NoisyCircuit:
    """The hybrid layer's circuit transpiled for ``device`` with its noise (shared by the tests: loading a
    fake backend and transpiling is most of their time)."""
    circuit = qiskit_circuit(qubits, 2)
    return prepare_noisy(circuit, list(circuit.parameters), device, 100, seed=3)


def _aer_exact(
    noisy: noisy_density.NoisyDensityProgram,
    circuit: QuantumCircuit,
    noise: NoiseModel,
    values: np.ndarray,
    parameters: list,
) -> np.ndarray:  # type: ignore[type-arg]
    """Aer's exact noisy distribution per clbit layout: the circuit without its final measurements, its
    probabilities saved on the measured qubits in clbit order, then each qubit's readout matrix."""
    measured = {
        circuit.find_bit(i.clbits[0]).index: circuit.find_bit(i.qubits[0]).index
        for i in circuit.data
        if i.operation.name == "measure"
    }
    order = [measured[c] for c in range(circuit.num_clbits)]
    bare = circuit.remove_final_measurements(inplace=False)
    bare.save_probabilities(qubits=order)
    simulator = AerSimulator(noise_model=noise, method="density_matrix")
    used = set(bare.parameters)
    out = []
    for row in values:
        bound = bare.assign_parameters({p: row[i] for i, p in enumerate(parameters) if p in used})
        p = np.asarray(simulator.run(bound).result().data(0)["probabilities"], dtype=np.float64)
        k = len(order)
        tensor = p.reshape([2] * k)  # axes: clbit k-1 .. 0
        for c, q in enumerate(order):
            error = noise._local_readout_errors.get((q,))
            if error is not None:
                axis = k - 1 - c
                tensor = np.moveaxis(
                    np.moveaxis(tensor, axis, -1) @ np.asarray(error.probabilities), -1, axis
                )
        out.append(tensor.reshape(-1))
    return np.asarray(out)


@pytest.mark.parametrize("device", ["fake_kyiv", "fake_torino"])
@pytest.mark.parametrize("qubits", [2, 4])
def test_probabilities_equal_aer_density_matrix(device: str, qubits: int) -> None:
    noisy = _noisy(device, qubits)
    program = from_noisy_circuit(noisy)
    assert program.qubits == qubits
    assert program.clbits == qubits
    rng = np.random.default_rng(qubits)
    values = rng.uniform(-np.pi, np.pi, (3, len(noisy.parameters)))
    ours = program.probabilities(torch.tensor(values)).numpy()
    noise = noisy.simulator.options.noise_model
    reference = _aer_exact(program, noisy.circuit, noise, values, noisy.parameters)
    assert np.abs(ours - reference).max() < 1e-10
    assert np.allclose(ours.sum(axis=1), 1.0)
    # the noise matters: the exact noiseless distribution differs by far more than the tolerance
    silent = compile_noisy(noisy.circuit, NoiseModel(), noisy.parameters)
    assert np.abs(silent.probabilities(torch.tensor(values)).numpy() - ours).max() > 1e-3


def test_a_swapped_layout_maps_measured_qubits_back_to_the_models_bits() -> None:
    """A circuit whose clbits are measured from other compact qubits (as routing leaves them) reads back
    in clbit order: compare with Aer, readout errors differing per qubit."""
    a, b = Parameter("a"), Parameter("b")
    circuit = QuantumCircuit(3, 2)
    circuit.rz(a, 0)
    circuit.sx(0)
    circuit.rz(2 * b - 0.3, 2)
    circuit.sx(2)
    circuit.cz(0, 2)
    circuit.x(1)
    circuit.measure(2, 0)
    circuit.measure(0, 1)
    backend = fake_backend("fake_torino")
    noise = _device_noise(backend, [0, 1, 2])
    noise.add_quantum_error(noise._local_quantum_errors["cz"][(0, 1)], "cz", [0, 2])
    program = compile_noisy(circuit, noise, [a, b])
    values = np.array([[0.4, -1.1], [2.0, 0.7]])
    reference = _aer_exact(program, circuit, noise, values, [a, b])
    assert np.abs(program.probabilities(torch.tensor(values)).numpy() - reference).max() < 1e-10


def test_the_zz_feature_maps_nonlinear_angles_equal_aer_and_differentiate() -> None:
    """The VQC's circuit: the ZZ feature map's pair angles 2 (pi - x_i)(pi - x_j) are not linear."""
    from qmlstudio_worker.quantum.statevector import Ansatz, qiskit_feature_map

    feature_map = qiskit_feature_map(3, 2)
    ansatz = Ansatz("RealAmplitudes", 3, 1).qiskit_circuit()
    parameters = [*feature_map.parameters, *ansatz.parameters]
    noisy = prepare_noisy(feature_map.compose(ansatz), parameters, "fake_kyiv", 100, seed=1)
    program = from_noisy_circuit(noisy)
    rng = np.random.default_rng(2)
    values = rng.uniform(0, 1, (2, len(parameters)))
    ours = program.probabilities(torch.tensor(values)).numpy()
    noise = noisy.simulator.options.noise_model
    assert np.abs(ours - _aer_exact(program, noisy.circuit, noise, values, parameters)).max() < 1e-10
    tensor = torch.tensor(values, requires_grad=True)
    program.probabilities(tensor)[:, 1].sum().backward()
    assert tensor.grad is not None
    h = 1e-6
    for column in (0, 3):  # a feature (in the nonlinear angles) and a weight
        up, down = values.copy(), values.copy()
        up[:, column] += h
        down[:, column] -= h
        with torch.no_grad():
            numeric = (
                program.probabilities(torch.tensor(up))[:, 1]
                - program.probabilities(torch.tensor(down))[:, 1]
            ) / (2 * h)
        assert np.abs(tensor.grad[:, column].numpy() - numeric.numpy()).max() < 1e-6


@pytest.mark.parametrize("device", ["fake_kyiv", "fake_torino"])
def test_gradients_equal_finite_differences(device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    noisy = _noisy(device, 2)
    program = from_noisy_circuit(noisy)
    rng = np.random.default_rng(1)
    values = torch.tensor(rng.uniform(-np.pi, np.pi, (2, len(noisy.parameters))), requires_grad=True)
    weights = torch.tensor(rng.normal(size=2**2))
    (program.probabilities(values) @ weights).sum().backward()
    assert values.grad is not None
    grad = values.grad.numpy().copy()
    # the checkpointed path (large circuits: recomputed during backward) gives the same gradient
    monkeypatch.setattr(noisy_density, "CHECKPOINT_BYTES", 0)
    program.segments = 3
    values.grad = None
    (program.probabilities(values) @ weights).sum().backward()
    assert np.abs(values.grad.numpy() - grad).max() < 1e-12
    h = 1e-5
    numeric = np.zeros_like(grad)
    with torch.no_grad():
        for r in range(values.shape[0]):
            for i in range(values.shape[1]):
                up, down = values.detach().clone(), values.detach().clone()
                up[r, i] += h
                down[r, i] -= h
                numeric[r, i] = float(
                    ((program.probabilities(up) - program.probabilities(down)) @ weights).sum() / (2 * h)
                )
    assert np.abs(grad - numeric).max() < 1e-6
    assert np.abs(grad).max() > 1e-3  # the parameters do move the distribution


def test_a_device_backend_compiles_like_the_noise_model() -> None:
    noisy = _noisy("fake_kyiv", 2)
    circuit = qiskit_circuit(2, 2)
    program, compact, physical = compile_for_backend(
        circuit, list(circuit.parameters), fake_backend("fake_kyiv"), seed=3
    )
    assert compact.count_ops() == noisy.circuit.count_ops()
    assert physical == noisy.physical_qubits
    values = torch.tensor(np.random.default_rng(0).uniform(-2, 2, (2, len(noisy.parameters))))
    expected = from_noisy_circuit(noisy).probabilities(values)
    assert torch.allclose(program.probabilities(values), expected, atol=1e-12)


def test_angles_of_other_parameters_and_unsupported_gates_are_refused() -> None:
    a, b = Parameter("a"), Parameter("b")
    circuit = QuantumCircuit(1, 1)
    circuit.rz(a * b, 0)
    circuit.measure(0, 0)
    with pytest.raises(NoisyDensityError, match="which is not the model's"):
        compile_noisy(circuit, NoiseModel(), [a])
    other = QuantumCircuit(1, 1)
    other.u(a, 0, 0, 0)
    other.measure(0, 0)
    with pytest.raises(NoisyDensityError, match="parameterized gate u"):
        compile_noisy(other, NoiseModel(), [a])
    late = QuantumCircuit(1, 1)
    late.measure(0, 0)
    late.x(0)
    with pytest.raises(NoisyDensityError, match="follows a measurement"):
        compile_noisy(late, NoiseModel(), [])


def test_noisy_training_limits_depend_on_the_rows_a_step_simulates() -> None:
    limits = noisy_density.NOISY_TRAINING_LIMITS
    # the hybrid's mini-batches take the stock/demand form's 8 qubits, one-row ADAM steps 10, the VQC's
    # every-row ADAM steps 6 (measured costs in the constants' docs)
    assert limits == {"hybrid": 8, "rows": 6, "one_row": 10}
    for use, limit in limits.items():
        check_noisy_training_qubits(limit, 32, use)
        with pytest.raises(NoisyDensityError, match=f"at most {limit} qubits: "):
            check_noisy_training_qubits(limit + 1, 32, use)
    with pytest.raises(ValueError, match="unknown noisy training use"):
        check_noisy_training_qubits(4, 1, "batch")


def test_the_hybrids_refusal_above_8_qubits_states_the_measured_cost() -> None:
    with pytest.raises(NoisyDensityError) as refused:
        check_noisy_training_qubits(9, rows=320, use="hybrid")
    message = str(refused.value)
    gb, seconds = noisy_density.NOISY_TRAINING_COST[9]
    assert (gb, seconds) == (3.5, 124.0)  # measured: 9 qubits, 32 windows forward and backward
    assert message.startswith(
        f"Noisy training of 9 qubits (after transpiling for the device) needs about {gb:.2g} GB"
    )
    assert f"{seconds * 10:,.0f} s per epoch of 320 rows" in message
    assert "hybrid network allows at most 8 qubits" in message
    assert "choose 8 or fewer qubits, or train without a noise model" in message


def test_one_row_adam_refusal_quotes_the_per_step_cost_and_the_other_optimizers() -> None:
    # the routing sample: 14 active qubits
    with pytest.raises(NoisyDensityError) as refused:
        check_noisy_training_qubits(14, 1, "one_row")
    message = str(refused.value)
    gb, seconds = noisy_density.noisy_training_cost(14, 1, "one_row")
    gb10, seconds10 = noisy_density.NOISY_STEP_COST[10]
    assert (gb, seconds) == (gb10 * 4**4, seconds10 * 4**4)
    assert f"needs about {gb:,.0f} GB and {seconds:,.0f} s per step (one row)" in message
    assert "choose COBYLA or SPSA" in message
