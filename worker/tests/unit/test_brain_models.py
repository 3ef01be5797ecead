"""The brain tumor networks: every model's forward and one training step on tiny inputs, the QCNN's
quantum layer against Qiskit, its gradients, the qubit budget, DenseNet-121's pretrained-weights loader
and the QSVM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from qiskit.quantum_info import SparsePauliOp, Statevector

from qmlstudio_worker.ml.recurrent import torch_settings
from qmlstudio_worker.problems.brain_tumor import qcnn
from qmlstudio_worker.problems.brain_tumor.model_store import load_bundle, save_bundle
from qmlstudio_worker.problems.brain_tumor.models import (
    DEFAULT_INPUT_SIZE,
    build_model,
    load_pretrained_densenet,
)
from qmlstudio_worker.problems.brain_tumor.qsvm import fit_qsvm
from qmlstudio_worker.quantum import hybrid

CLASSES = ("meningioma", "glioma", "pituitary")


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """One torch thread, as the job runs (many times faster on a shared 2-core machine)."""
    with torch_settings(1, deterministic=False):
        yield


def one_step(model: torch.nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, float]:
    y = torch.tensor([0, 1, 2, 1][: len(x)])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    model.train()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    before = [p.detach().clone() for p in model.parameters()]
    optimizer.step()
    changed = sum(int(not torch.equal(b, p)) for b, p in zip(before, model.parameters(), strict=True))
    return model(x), changed / len(before)


@pytest.mark.parametrize("name", ["densenet121", "FCN", "3D_CNNs", "QCNN"])
def test_each_network_maps_its_input_to_three_logits_and_trains(name: str) -> None:
    torch.manual_seed(0)
    size = DEFAULT_INPUT_SIZE[name]
    model = build_model(name, {"n_qubits": 4, "circuit_depth": 1} if name == "QCNN" else {})
    logits, changed = one_step(model, torch.rand(4, 1, size, size))
    assert logits.shape == (4, 3)
    assert torch.isfinite(logits).all()
    assert changed > 0.9  # (nearly) every parameter tensor moved in the one step


def test_the_3d_cnn_reads_a_stack_of_neighbouring_slices_and_a_single_slice_as_its_own_stack() -> None:
    torch.manual_seed(0)
    model = build_model("3D_CNNs").eval()
    single = torch.rand(2, 1, 64, 64)
    stacked = single.unsqueeze(2).expand(-1, -1, 3, -1, -1)
    with torch.no_grad():
        torch.testing.assert_close(model(single), model(stacked))
        assert model(torch.rand(2, 1, 3, 64, 64)).shape == (2, 3)


def test_densenet121_has_the_architecture_s_size() -> None:
    model = build_model("densenet121")
    # torchvision's densenet121 has 7,978,856 parameters with 3 input channels and 1000 classes; ours has
    # one input channel (64 x 49 fewer weights in conv0) and 3 classes (1024 x 997 + 997 fewer).
    expected = 7_978_856 - 64 * 49 * 2 - (1024 * 997 + 997)
    assert sum(p.numel() for p in model.parameters()) == expected
    names = {name for name, _ in model.named_modules()}
    assert {"features.denseblock4.denselayer16", "features.transition3", "features.norm5"} <= names


def test_pretrained_densenet_weights_load_with_rgb_filters_summed(tmp_path: Path) -> None:
    torch.manual_seed(1)
    donor = build_model("densenet121").state_dict()
    rgb = {k: v.clone() for k, v in donor.items() if not k.startswith("classifier")}
    rgb["features.conv0.weight"] = donor["features.conv0.weight"].repeat(1, 3, 1, 1) / 3
    rgb["classifier.weight"] = torch.zeros(1000, 1024)
    torch.save(rgb, tmp_path / "densenet121.pth")
    torch.manual_seed(2)
    model = build_model("densenet121")
    skipped = load_pretrained_densenet(model, tmp_path / "densenet121.pth")
    assert skipped == ["classifier.weight"]
    torch.testing.assert_close(model.state_dict()["features.conv0.weight"], donor["features.conv0.weight"])
    torch.testing.assert_close(
        model.state_dict()["features.denseblock3.denselayer7.conv2.weight"],
        donor["features.denseblock3.denselayer7.conv2.weight"],
    )


def test_a_file_that_is_not_a_densenet_is_refused(tmp_path: Path) -> None:
    torch.save({"weight": torch.zeros(3)}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not a DenseNet-121"):
        load_pretrained_densenet(build_model("densenet121"), tmp_path / "other.pt")


def z_expectations(state: Statevector, n: int) -> list[float]:
    return [
        float(state.expectation_value(SparsePauliOp("I" * (n - 1 - q) + "Z" + "I" * q)).real)
        for q in range(n)
    ]


@pytest.mark.parametrize(("qubits", "depth"), [(4, 3), (10, 1)])
def test_qcnn_quantum_features_equal_qiskit_statevector(qubits: int, depth: int) -> None:
    torch.manual_seed(qubits)
    model = build_model("QCNN", {"n_qubits": qubits, "circuit_depth": depth, "patch_size": 3, "step_size": 2})
    model.eval()
    x = torch.rand(1, 1, 32, 32)
    with torch.no_grad():
        ours = model.quantum_features(x)[0].double().numpy()  # (qubits, positions)
        angles = (np.pi * torch.tanh(model.encode(model.trunk(x)))).flatten(2)[0].T.double().numpy()
    assert ours.shape == (qubits, qcnn.patch_positions(3, 2))
    circuit = hybrid.qiskit_circuit(qubits, depth)
    weights = model.quantum_weights.detach().numpy()
    for position in range(ours.shape[1]):
        state = Statevector(circuit.assign_parameters([*angles[position], *weights]))
        # float32 trunk -> angles: compare to the float32 rounding of the classical part only
        assert np.abs(ours[:, position] - z_expectations(state, qubits)).max() < 1e-6


def test_the_qcnn_quantum_layer_itself_is_exact_to_1e_10() -> None:
    rng = np.random.default_rng(3)
    model = build_model("QCNN", {"n_qubits": 4, "circuit_depth": 3})
    angles = rng.uniform(-np.pi, np.pi, (2, 4))
    ours = hybrid.quantum_layer(torch.tensor(angles), model.quantum_weights.detach(), model.ansatz).numpy()
    circuit = hybrid.qiskit_circuit(4, 3)
    for row in range(2):
        state = Statevector(
            circuit.assign_parameters([*angles[row], *model.quantum_weights.detach().numpy()])
        )
        assert np.abs(ours[row] - z_expectations(state, 4)).max() < 1e-10


def test_qcnn_gradients_reach_the_quantum_weights() -> None:
    torch.manual_seed(0)
    model = build_model("QCNN", {"n_qubits": 4, "circuit_depth": 2})
    loss = torch.nn.functional.cross_entropy(model(torch.rand(3, 1, 32, 32)), torch.tensor([0, 1, 2]))
    loss.backward()
    grad = model.quantum_weights.grad
    assert grad is not None
    assert grad.shape == (model.ansatz.num_parameters,)
    assert float(grad.abs().sum()) > 0
    assert model.encode.weight.grad is not None  # and through the circuit back to the patch encoder


def test_qcnn_head_follows_layers_units_activation_and_dropout() -> None:
    model = build_model(
        "QCNN",
        {"n_qubits": 4, "n_layers": 2, "units_per_layer": 64, "activation": "softmax", "dropout_rate": 0.5},
    )
    kinds = [type(m).__name__ for m in model.head]
    assert kinds == ["Linear", "Softmax", "Dropout", "Linear", "Softmax", "Dropout", "Linear"]
    assert model.head[0].in_features == 4
    assert model.head[3].out_features == 64
    assert model.head[2].p == 0.5


def test_too_many_qubits_for_this_machine_are_refused_naming_what_fits() -> None:
    qcnn.check_qubit_budget(qcnn.qcnn_config({"n_qubits": 10}), 16)  # fits
    with pytest.raises(ValueError, match=r"n_qubits 20 needs about .* GB.*use 4 or 10 on this machine"):
        qcnn.check_qubit_budget(qcnn.qcnn_config({"n_qubits": 20}), 16)


def test_qsvm_fits_on_embeddings_and_its_bundle_predicts_the_same(tmp_path: Path) -> None:
    torch.manual_seed(0)
    embedding = build_model("FCN")
    rng = np.random.default_rng(0)
    labels = [0, 1, 2] * 6
    # each class a different brightness: separable embeddings even from an untrained FCN
    x = torch.tensor(
        np.stack([rng.random((1, 64, 64)) * 0.2 + 0.3 * label for label in labels]), dtype=torch.float32
    )
    model = fit_qsvm(embedding, x, labels, n_qubits=4, reps=2, seed=0)
    proba = model.predict_proba(x)
    assert proba.shape == (18, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    assert (proba.argmax(axis=1) == np.asarray(labels)).mean() > 0.8
    card = save_bundle(
        tmp_path,
        model_name="QSVM",
        model_type="quantum",
        model=model,
        config={"n_qubits": 4},
        input_size=64,
        classes=CLASSES,
    )
    np.testing.assert_allclose(load_bundle(card).predict_proba(x), proba, atol=1e-9)
