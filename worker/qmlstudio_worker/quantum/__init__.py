"""Quantum models of the examples, simulated exactly.

- :mod:`.statevector`: a batched, differentiable statevector simulator in torch (float64 / complex128) for
  the gates the models use, and the circuits' layouts (RealAmplitudes, EfficientSU2, TwoLocal, ZZ
  feature map) matching Qiskit's library circuits gate for gate (tests compare with
  ``qiskit.quantum_info.Statevector`` to 1e-10);
- :mod:`.hybrid`: the hybrid QNN forecaster (stock price prediction, demand forecasting);
- :mod:`.vqc`: the variational quantum classifier (fraud detection);
- :mod:`.portfolio_vqe`: SamplingVQE and QAOA for the portfolio QUBO;
- :mod:`.noisy_density`: a device-transpiled circuit and its noise as a differentiable torch density
  matrix, for training under a noise model (tests compare it with Aer's density matrix to 1e-10).

Everything here is imported lazily by the handlers, so a classical run never loads it.
"""
