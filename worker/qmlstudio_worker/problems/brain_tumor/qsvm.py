"""QSVM: a quantum-kernel support vector machine over embeddings of the MRI slices.

1. embedding: the FCN of :mod:`.models` is trained on the training slices (the job's epochs, optimizer
   and loss: :mod:`.training`); its pooled last convolution (128 values per slice) is the embedding;
2. reduction: the embeddings are standardized and reduced by PCA to ``n_qubits`` components (fitted on
   the training slices), each mapped to an angle in [0, pi] by the training range of that component;
3. kernel: the fidelity kernel K(x, y) = |<phi(x)|phi(y)>|^2 of Qiskit's ZZ feature map with
   ``circuit_depth`` repetitions, computed exactly from statevectors
   (:func:`qmlstudio_worker.quantum.kernel_classifier.fidelity_kernel`);
4. scikit-learn's ``SVC(kernel="precomputed")``, one-vs-rest; the class probabilities are the softmax of
   its decision values (scores that rank the classes as the SVM does; not calibrated probabilities:
   Platt scaling, ``probability=True``, is deprecated in scikit-learn 1.9 and unstable on few slices).

The kernel holds one entry per pair of training slices and each statevector has 2**n_qubits amplitudes,
so training uses at most ``MAX_KERNEL_ROWS`` slices and :func:`check_qsvm_budget` refuses qubit counts
whose statevectors would not fit this machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAX_KERNEL_ROWS = 400
STATE_BUDGET_BYTES = 1_000_000_000
EMBEDDING_FILE = "embedding.pt"
ARRAYS_FILE = "qsvm.npz"
SVC_FILE = "svc.joblib"

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def check_qsvm_budget(n_qubits: int, rows: int) -> None:
    """Refuse (ValueError, the user's words) a kernel whose feature-map statevectors exceed the budget."""
    need = rows * (2**n_qubits) * 16 * 3  # complex128, a few live copies while the feature map runs
    if need <= STATE_BUDGET_BYTES:
        return
    fitting = [q for q in (4, 10, 15, 20) if rows * (2**q) * 48 <= STATE_BUDGET_BYTES]
    raise ValueError(
        f"n_qubits {n_qubits} needs about {need / 1e9:.1f} GB of memory for the exact kernel of {rows} "
        f"slices (this machine allows {STATE_BUDGET_BYTES / 1e9:.1f} GB): use "
        f"{' or '.join(str(q) for q in fitting) or 'fewer qubits'} on this machine"
    )


def embed(network: Any, x: Any, batch_size: int = 64) -> FloatArray:
    """The FCN's pooled features (n, 128) for the model input ``x``."""
    import torch

    network.eval()
    parts = []
    with torch.no_grad():
        for start in range(0, len(x), batch_size):
            parts.append(network.features(x[start : start + batch_size]).mean(dim=(2, 3)).double().numpy())
    return np.concatenate(parts) if parts else np.zeros((0, 128))


@dataclass
class QsvmClassifier:
    embedding: Any  # the FCN nn.Module
    mean: FloatArray
    scale: FloatArray
    components: FloatArray  # (n_qubits, 128)
    low: FloatArray
    high: FloatArray
    support_angles: FloatArray  # every training slice's angles (the precomputed kernel's columns)
    reps: int
    svc: Any

    def angles(self, embeddings: FloatArray) -> FloatArray:
        reduced = ((embeddings - self.mean) / self.scale) @ self.components.T
        span = np.where(self.high - self.low > 1e-12, self.high - self.low, 1.0)
        return np.asarray(np.clip((reduced - self.low) / span, 0.0, 1.0) * np.pi, dtype=np.float64)

    def kernel(self, angles: FloatArray) -> FloatArray:
        from qmlstudio_worker.quantum.kernel_classifier import fidelity_kernel

        return fidelity_kernel(angles, self.support_angles, self.reps)

    def predict_proba(self, x: Any) -> np.ndarray[Any, Any]:
        """Class probabilities (n, 3) for the model input x (n, 1, S, S)."""
        decision = np.asarray(self.svc.decision_function(self.kernel(self.angles(embed(self.embedding, x)))))
        if decision.ndim == 1:  # two classes seen in training: one margin, for the second class
            decision = np.stack([-decision, decision], axis=1)
        scores = np.full((len(x), 3), -np.inf)
        # SVC.classes_ are the class indices seen in training (0..2): a class never seen gets probability 0.
        scores[:, np.asarray(self.svc.classes_, dtype=int)] = decision
        exp = np.exp(scores - scores.max(axis=1, keepdims=True))
        return np.asarray(exp / exp.sum(axis=1, keepdims=True), dtype=np.float64)

    def save_files(self, directory: Path) -> dict[str, str]:
        import joblib  # type: ignore[import-untyped]
        import torch

        torch.save(self.embedding.state_dict(), directory / EMBEDDING_FILE)
        np.savez(
            directory / ARRAYS_FILE,
            mean=self.mean,
            scale=self.scale,
            components=self.components,
            low=self.low,
            high=self.high,
            support_angles=self.support_angles,
            reps=np.asarray(self.reps),
        )
        joblib.dump(self.svc, directory / SVC_FILE)
        return {"embedding": EMBEDDING_FILE, "arrays": ARRAYS_FILE, "svc": SVC_FILE}


def fit_qsvm(
    embedding: Any,
    x_train: Any,
    y_train: Sequence[int],
    *,
    n_qubits: int,
    reps: int,
    seed: int,
) -> QsvmClassifier:
    """Fit the reduction and the SVM on the trained embedding network's features of the training slices
    (``y_train`` are class indices 0..2; at most MAX_KERNEL_ROWS slices, the caller picks them)."""
    from sklearn.decomposition import PCA  # type: ignore[import-untyped]
    from sklearn.svm import SVC  # type: ignore[import-untyped]

    from qmlstudio_worker.quantum.kernel_classifier import fidelity_kernel

    labels = np.asarray(y_train, dtype=int)
    if len(np.unique(labels)) < 2:
        raise ValueError("the QSVM needs training slices of at least two classes")
    check_qsvm_budget(n_qubits, len(labels))
    features = embed(embedding, x_train)
    mean = features.mean(axis=0)
    scale = np.where(features.std(axis=0) > 1e-12, features.std(axis=0), 1.0)
    standardized = (features - mean) / scale
    components = min(n_qubits, standardized.shape[0], standardized.shape[1])
    pca = PCA(n_components=components, random_state=seed).fit(standardized)
    matrix = np.zeros((n_qubits, standardized.shape[1]))
    matrix[:components] = pca.components_  # fewer slices than qubits: the extra qubits see 0
    reduced = standardized @ matrix.T
    low, high = reduced.min(axis=0), reduced.max(axis=0)
    model = QsvmClassifier(embedding, mean, scale, matrix, low, high, np.zeros((0, n_qubits)), reps, None)
    angles = model.angles(features)
    model.support_angles = angles
    kernel = fidelity_kernel(angles, angles, reps, symmetric=True)
    model.svc = SVC(kernel="precomputed", decision_function_shape="ovr", class_weight="balanced")
    model.svc.fit(kernel, labels)
    return model


def load_qsvm(directory: Path, card: dict[str, Any]) -> QsvmClassifier:
    """The QSVM saved by :meth:`QsvmClassifier.save_files` in ``directory`` (``card`` is its model.json)."""
    import joblib
    import torch

    from qmlstudio_worker.problems.brain_tumor.models import build_fcn

    files = card["files"]
    embedding = build_fcn()
    embedding.load_state_dict(
        torch.load(directory / files["embedding"], map_location="cpu", weights_only=True)
    )
    with np.load(directory / files["arrays"]) as arrays:
        return QsvmClassifier(
            embedding=embedding,
            mean=arrays["mean"],
            scale=arrays["scale"],
            components=arrays["components"],
            low=arrays["low"],
            high=arrays["high"],
            support_angles=arrays["support_angles"],
            reps=int(arrays["reps"]),
            svc=joblib.load(directory / files["svc"]),
        )
