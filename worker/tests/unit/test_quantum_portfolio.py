"""SamplingVQE and QAOA on the portfolio QUBO: the energies and the QAOA circuit against Qiskit, the exact
optimum found on 4 assets (and on the qiskit-finance reference, where VQE needs the CVaR aggregation),
determinism, the shot-based path and protocol-valid lines."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from qiskit.circuit.library import qaoa_ansatz
from qiskit.quantum_info import Statevector

from qmlstudio_worker.problems.portfolio_optimization import quantum_solver as portfolio_vqe
from qmlstudio_worker.problems.portfolio_optimization.quantum_solver import (
    energies,
    ising_operator,
    solve_qaoa,
    solve_sampling_vqe,
)
from qmlstudio_worker.problems.portfolio_optimization.selection import (
    PortfolioProblem,
    build_problem,
    daily_returns,
)
from qmlstudio_worker.protocol import Emitter
from qmlstudio_worker.quantum import variational
from qmlstudio_worker.quantum.variational import basis_bits, cvar, qaoa_state

REPO_ROOT = Path(__file__).resolve().parents[3]
PRICES = REPO_ROOT / "samples" / "five_companies_stock.csv"


@pytest.fixture(scope="module")
def four_assets() -> PortfolioProblem:
    prices = pd.read_csv(PRICES)
    return build_problem(daily_returns(prices, ["AAPL", "GOOG", "META", "NVDA"]), 0.5, 2)


def test_energies_are_the_penalized_objective(four_assets: PortfolioProblem) -> None:
    energy, penalty, scale = energies(four_assets)
    for z, bits in enumerate(basis_bits(4)):
        expected = four_assets.objective(bits) + penalty * (bits.sum() - 2) ** 2
        assert energy[z] * scale == pytest.approx(expected, abs=1e-12)
    feasible = basis_bits(4).sum(axis=1) == 2
    # The penalty is exact: every infeasible bitstring costs more than every feasible one.
    assert energy[~feasible].min() > energy[feasible].max()


def test_ising_operator_diagonal_equals_the_energies(four_assets: PortfolioProblem) -> None:
    energy, _, _ = energies(four_assets)
    diagonal = np.real(np.diag(ising_operator(four_assets).to_matrix()))
    assert np.abs(diagonal - energy).max() < 1e-10


def test_qaoa_state_equals_qiskit_qaoa_ansatz(four_assets: PortfolioProblem) -> None:
    energy, _, _ = energies(four_assets)
    circuit = qaoa_ansatz(ising_operator(four_assets), reps=2)
    rng = np.random.default_rng(3)
    betas, gammas = rng.uniform(-2, 2, 2), rng.uniform(-2, 2, 2)
    ours = qaoa_state(torch.as_tensor(energy), torch.tensor(betas), torch.tensor(gammas), 4)[0].numpy()
    reference = Statevector(circuit.assign_parameters([*betas, *gammas])).data
    assert abs(abs(np.vdot(reference, ours)) - 1) < 1e-10  # equal up to a global phase
    assert np.abs(np.abs(ours) ** 2 - np.abs(reference) ** 2).max() < 1e-10


def test_vqe_finds_the_exact_optimum_on_four_assets(four_assets: PortfolioProblem) -> None:
    result = solve_sampling_vqe(four_assets, "COBYLA", 100, 2, seed=42)
    best = min(
        (c for c in itertools.combinations(range(4), 2)),
        key=lambda c: four_assets.objective([1 if i in c else 0 for i in range(4)]),
    )
    assert result["exact_optimum"]["selection"] == [four_assets.assets[i] for i in best]
    assert result["found_optimum"] is True
    assert result["selection"] == result["exact_optimum"]["selection"]
    assert result["gap"] == 0
    assert result["feasible_probability"] > 0.5
    assert 0 <= result["optimum_probability"] <= 1
    assert 10 < len(result["convergence"]) <= 100  # COBYLA may converge before its budget
    assert result["convergence"][-1] < result["convergence"][0]


def test_cvar_is_the_mean_energy_of_the_best_alpha_share() -> None:
    energy = torch.tensor([3.0, 1.0, 2.0, 0.0])
    probs = torch.tensor([0.1, 0.2, 0.3, 0.4])
    assert float(cvar(probs, energy, 1.0)) == pytest.approx(float(probs @ energy))
    assert float(cvar(probs, energy, 0.4)) == pytest.approx(0.0)  # all of it from the lowest state
    assert float(cvar(probs, energy, 0.5)) == pytest.approx((0.4 * 0 + 0.1 * 1) / 0.5)


@pytest.fixture(scope="module")
def finance_reference() -> PortfolioProblem:
    """The qiskit-finance tutorial problem (RandomDataProvider, 4 assets, seed 123, risk 0.5, budget 2),
    as tests/bench/quantum-bench.py builds it; exact optimum x = [1, 0, 0, 1]."""
    generator = np.random.default_rng(123)
    prices = []
    for _ in range(4):
        walk = pd.DataFrame(generator.standard_normal(29)).cumsum() + generator.integers(1, 101)
        prices.append(np.maximum(walk[0].to_numpy(), 0.0))
    series = np.asarray(prices)
    returns = series[:, 1:] / series[:, :-1] - 1
    return PortfolioProblem(
        assets=tuple(f"TICKER{i}" for i in range(4)),
        mu=returns.mean(axis=1),
        sigma=np.cov(returns, rowvar=True),
        risk_factor=0.5,
        budget=2,
    )


def test_vqe_reaches_the_reference_optimum_with_cvar(finance_reference: PortfolioProblem) -> None:
    result = solve_sampling_vqe(finance_reference, "COBYLA", 500, 3, seed=123)
    assert result["exact_optimum"]["bits"] == [1, 0, 0, 1]
    assert result["aggregation"] == portfolio_vqe.VQE_CVAR_ALPHA == 0.5
    assert result["found_optimum"] is True
    assert result["most_likely_bitstring"] == "1001"
    assert result["optimum_probability"] > 0.4
    # the plain mean energy settles on the runner-up [1, 0, 1, 0] from this initial point
    mean = solve_sampling_vqe(finance_reference, "COBYLA", 500, 3, seed=123, aggregation=None)
    assert mean["aggregation"] is None
    assert mean["found_optimum"] is False
    with pytest.raises(ValueError, match="aggregation"):
        solve_sampling_vqe(finance_reference, "COBYLA", 10, 1, aggregation=0.0)


def test_qaoa_finds_the_exact_optimum_and_is_deterministic(four_assets: PortfolioProblem) -> None:
    first = solve_qaoa(four_assets, "COBYLA", 60, 2, seed=5)
    again = solve_qaoa(four_assets, "COBYLA", 60, 2, seed=5)
    assert first["found_optimum"] is True
    assert first["convergence"] == again["convergence"]
    assert first["top_bitstrings"] == again["top_bitstrings"]
    assert first["circuit"]["qubits"] == 4


@pytest.mark.parametrize("optimizer", ["SPSA", "ADAM"])
def test_other_optimizers_run(four_assets: PortfolioProblem, optimizer: str) -> None:
    result = solve_sampling_vqe(four_assets, optimizer, 30, 1, seed=1)
    assert result["optimizer"]["method"] == optimizer
    assert len(result["convergence"]) == 30
    assert len(result["selection"]) == 2


def test_shots_sample_the_distribution(four_assets: PortfolioProblem) -> None:
    result = solve_sampling_vqe(four_assets, "COBYLA", 40, 1, seed=3, shots=256)
    assert result["readout_shots"] == 256
    assert all(
        abs(t["probability"] * 256 - round(t["probability"] * 256)) < 1e-9 for t in result["top_bitstrings"]
    )
    with pytest.raises(ValueError, match="shots"):
        solve_sampling_vqe(four_assets, "COBYLA", 10, 1, shots=0)


def test_emits_protocol_lines(four_assets: PortfolioProblem) -> None:
    stream = io.StringIO()
    solve_qaoa(four_assets, "COBYLA", 20, 1, seed=0, emit=Emitter(stream))
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    charts = [line["chart"] for line in lines if line["type"] == "chart"]
    assert [c["type"] for c in charts] == ["line", "bar"]
    assert {line["name"] for line in lines if line["type"] == "metric"} >= {
        "objective",
        "optimum_probability",
        "optimality_gap",
        "energy",
    }
    # the top-bitstrings chart marks the bitstrings that break the budget (they are no selection)
    (bar,) = [c for c in charts if c["type"] == "bar"]
    assert f"budget {four_assets.budget}" in bar["title"]
    for category in bar["categories"]:
        bitstring = category.split(" ")[0]
        ones = bitstring.count("1")
        if ones == four_assets.budget:
            assert category == bitstring
        else:
            assert category == f"{bitstring} ({'over' if ones > four_assets.budget else 'under'} budget)"
    assert any(" budget)" in category for category in bar["categories"])  # some break it in 20 steps
    assert variational.READOUT_SHOTS == 1024


def test_adam_under_a_noise_model_follows_the_noisy_channel(four_assets: PortfolioProblem) -> None:
    noisy = solve_qaoa(four_assets, "ADAM", 10, 1, seed=5, noise_model="fake_kyiv", shots=512)
    exact = solve_qaoa(four_assets, "ADAM", 10, 1, seed=5)
    curve = noisy["convergence"]
    assert len(curve) == 10
    assert curve[-1] < curve[0]  # the noisy energy falls
    assert abs(curve[0] - exact["convergence"][0]) > 1e-4  # the same start: the noise changes the energy
    assert noisy["simulation"].startswith("ADAM on the gradient of the exact noisy channel")
    assert noisy["noisy_training"]["rows_simulated"] == 10
    assert noisy["backend_run"]["circuits_run"] == 1  # only the final circuit is measured on Aer
    vqe = solve_sampling_vqe(four_assets, "ADAM", 4, 1, seed=1, noise_model="fake_torino", shots=256)
    assert vqe["noisy_training"]["active_qubits"] >= 4


def test_adam_on_a_device_is_refused(four_assets: PortfolioProblem) -> None:
    from qiskit_ibm_runtime.fake_provider import FakeKyiv

    from qmlstudio_worker.quantum.devices import DeviceTarget
    from qmlstudio_worker.quantum.optimizers import ADAM_ON_A_DEVICE

    device = DeviceTarget("ibm_kyiv", local_backend=FakeKyiv())
    with pytest.raises(ValueError, match="for a real device") as refused:
        solve_qaoa(four_assets, "ADAM", 2, 1, device=device)
    assert str(refused.value) == ADAM_ON_A_DEVICE
