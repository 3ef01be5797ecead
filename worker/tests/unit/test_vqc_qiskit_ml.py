"""The fraud VQC's fast path computes qiskit-machine-learning's VQC model.

For fixed weights, the class probabilities of :class:`.variational_classifier.FittedVQC` (batched
torch statevector) equal the forward pass of qiskit-machine-learning's ``VQC`` (its ``SamplerQNN`` on the
exact ``QMLSampler``, shots=None) built from Qiskit's own library circuits: ``zz_feature_map(4, reps=2,
entanglement="full")`` followed by the PQC, with the parity readout (odd number of ones = class 1).
The readout is given explicitly: qiskit-machine-learning 0.9's VQC default ``interpret`` is ``x % 2``
(the value of qubit 0), not the bitstring parity its docstring names and our VQC uses.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from qiskit.circuit.library import efficient_su2, n_local, real_amplitudes, zz_feature_map
from qiskit_machine_learning.algorithms.classifiers import VQC
from qiskit_machine_learning.primitives import QMLSampler

from qmlstudio_worker.ml.preprocess import MinMaxNormalizer
from qmlstudio_worker.quantum.variational_classifier import FEATURE_MAP_REPS, FittedVQC

QUBITS = 4
LIBRARY_PQC = {
    "RealAmplitudes": lambda reps: real_amplitudes(QUBITS, reps=reps),
    "EfficientSU2": lambda reps: efficient_su2(QUBITS, reps=reps),
    "TwoLocal": lambda reps: n_local(QUBITS, "ry", "cz", entanglement="full", reps=reps),
}


def parity(bitstring: int) -> int:
    return int(bitstring).bit_count() % 2


def fitted_model(pqc: str, reps: int, weights: np.ndarray) -> FittedVQC:
    """A FittedVQC with no PCA and unit scaling: a row's angles are (clip(x / 3, -1, 1) + 1) / 2 * pi."""
    return FittedVQC(
        features=[f"x{i}" for i in range(QUBITS)],
        target="Class",
        imputer=None,
        normalizer=MinMaxNormalizer("[0,1]"),  # not used by positive_probability
        standard_mean=np.zeros(QUBITS),
        standard_scale=np.ones(QUBITS),
        pca_mean=np.zeros(QUBITS),
        pca_components=np.eye(QUBITS),
        component_scale=np.ones(QUBITS),
        pqc=pqc,
        reps=reps,
        weights=weights,
        positive=1,
        negative=0,
        angle_range=math.pi,
    )


@pytest.mark.parametrize(("pqc", "reps"), [("RealAmplitudes", 3), ("EfficientSU2", 2), ("TwoLocal", 2)])
def test_class_probabilities_equal_qiskit_ml_vqc_forward(pqc: str, reps: int) -> None:
    rng = np.random.default_rng(7)
    ansatz = LIBRARY_PQC[pqc](reps)
    weights = rng.uniform(-math.pi, math.pi, ansatz.num_parameters)
    rows = rng.normal(0.0, 1.5, size=(12, QUBITS))  # some beyond the clip, as real z-scores are
    fitted = fitted_model(pqc, reps, weights)

    reference = VQC(
        feature_map=zz_feature_map(QUBITS, reps=FEATURE_MAP_REPS, entanglement="full"),
        ansatz=ansatz,
        sampler=QMLSampler(),  # exact probabilities (shots=None)
        interpret=parity,
        output_shape=2,
    )
    expected = reference.neural_network.forward(fitted.angles(rows), weights)

    p_class_1 = fitted.positive_probability(rows)
    assert expected.shape == (12, 2)
    np.testing.assert_allclose(p_class_1, expected[:, 1], rtol=0, atol=1e-10)
    np.testing.assert_allclose(1 - p_class_1, expected[:, 0], rtol=0, atol=1e-10)
    # Not a vacuous match: the probabilities differ from row to row and from a constant.
    assert np.ptp(p_class_1) > 0.1
    # The predicted classes agree too.
    assert fitted.predict_normalized(rows).tolist() == (expected[:, 1] >= 0.5).astype(int).tolist()
