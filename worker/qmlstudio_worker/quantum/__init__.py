"""Quantum techniques, generic over problems (this package imports neither ``jobs`` nor ``problems``).

- :mod:`.statevector`: circuits: a batched, differentiable statevector simulator in torch (float64 /
  complex128) for the gates the models use, and the circuits' layouts (RealAmplitudes, EfficientSU2,
  TwoLocal, ZZ feature map) matching Qiskit's library circuits gate for gate (tests compare with
  ``qiskit.quantum_info.Statevector`` to 1e-10);
- :mod:`.backends`, :mod:`.noisy_density`, :mod:`.devices`: simulators and noise: a circuit transpiled for
  a fake IBM device and run on Aer under its noise, the same circuit as a differentiable torch density
  matrix for training under noise (tests compare it with Aer's to 1e-10), and real IBM devices;
- :mod:`.optimizers`: COBYLA, SPSA and ADAM behind one ``minimize``;
- :mod:`.variational`: the one optimise-and-read-out loop (SamplingVQE or QAOA on a tabulated diagonal
  energy) that the portfolio and vehicle routing problems read their answers from;
- :mod:`.hybrid`, :mod:`.variational_classifier`, :mod:`.kernel_classifier`: the hybrid QNN forecaster,
  the VQC and the QSVC of a binary classification;
- :mod:`.run_facts`: what a result says about where its circuits ran.

Everything here is imported lazily by the handlers, so a classical run never loads it.
"""
