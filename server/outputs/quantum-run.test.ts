import { describe, expect, it } from 'vitest';
import type { QuantumRun } from '../jobs/job-result';
import { quantumRunDescription } from './quantum-run';

// The 'Quantum Backend' line from the result contract's quantum_run, in the shapes the worker writes
// (quantum/run_facts.py; backend_run is backends.NoisyCircuit.summary() or devices.DeviceCircuit.summary()).

const noisyRun = (circuits: number) => ({
  noise_model: 'fake_kyiv',
  device: 'ibm_kyiv',
  device_qubits: 127,
  physical_qubits: [0, 1, 2, 3],
  depth: 40,
  shots: 1024,
  simulation_method: 'density_matrix',
  trajectories: null,
  circuits_run: circuits,
  simulator_calls: 2,
  simulation_seconds: 1.2,
});
const deviceRun = {
  device: 'ibm_kyiv',
  device_qubits: 127,
  local_testing_mode: false,
  shots: 4000,
  provider_job_ids: ['d5q1', 'd5q2'],
  circuits_run: 300,
};
const noisyTraining = { method: 'exact noisy channel', active_qubits: 4, rows_simulated: 640 };

const run = (facts: Partial<QuantumRun> & Pick<QuantumRun, 'simulation'>) => ({
  quantum_run: {
    noise_model: null,
    device: null,
    backend_run: null,
    noisy_training: null,
    measured_after_training: 'test predictions',
    ...facts,
  },
});

describe('quantumRunDescription', () => {
  it('says a model trained on the noisy channel was tested on Aer with its shots', () => {
    const result = run({
      simulation: 'trained on the exact noisy channel ...; test predictions: noise model fake_kyiv ...',
      noise_model: 'fake_kyiv',
      backend_run: noisyRun(12),
      noisy_training: noisyTraining,
    });
    expect(quantumRunDescription(result)).toBe(
      'trained under the fake_kyiv noise model (exact noisy channel), test predictions on Aer with 1,024 shots (12 circuits)',
    );
  });

  it('words what the result says was measured, a noisy run without noisy training and a device run', () => {
    const optimisation = run({
      simulation: 'ADAM on the gradient of ...',
      noise_model: 'fake_kyiv',
      backend_run: noisyRun(1),
      noisy_training: { method: 'exact noisy channel', active_qubits: 4 },
      measured_after_training: 'the final circuit measured',
    });
    expect(quantumRunDescription(optimisation)).toBe(
      'trained under the fake_kyiv noise model (exact noisy channel), the final circuit measured on Aer with 1,024 shots (1 circuit)',
    );
    const noisy = run({
      simulation: 'noise model fake_kyiv ... per row; test rows scored by the same noisy circuits',
      noise_model: 'fake_kyiv',
      backend_run: noisyRun(960),
    });
    expect(quantumRunDescription(noisy)).toBe(
      'ran under the fake_kyiv noise model on Aer with 1,024 shots (960 circuits)',
    );
    const device = run({
      simulation: 'IBM device ibm_kyiv via IBM Quantum ...',
      device: 'ibm_kyiv',
      backend_run: deviceRun,
    });
    expect(quantumRunDescription(device)).toBe('ran on the device ibm_kyiv with 4,000 shots (300 circuits)');
    const local = { ...deviceRun, local_testing_mode: true };
    expect(
      quantumRunDescription(
        run({ simulation: 'trained on ...', backend_run: local, noisy_training: noisyTraining }),
      ),
    ).toBe(
      "trained under ibm_kyiv's calibration (exact noisy channel), test predictions on the device ibm_kyiv in local testing mode (its fake backend) with 4,000 shots (300 circuits)",
    );
  });

  it("names the noise model and device as the problem's form labels them", () => {
    const labels: Record<string, string> = { fake_kyiv: 'IBM Kyiv (snapshot)' };
    const label = (name: string) => labels[name] ?? name;
    const noisy = run({
      simulation: 'noise model fake_kyiv ...',
      noise_model: 'fake_kyiv',
      backend_run: noisyRun(9),
    });
    expect(quantumRunDescription(noisy, label)).toBe(
      'ran under the IBM Kyiv (snapshot) noise model on Aer with 1,024 shots (9 circuits)',
    );
  });

  it('says an ideal run is exact or sampled, and nothing for a result that states no run', () => {
    expect(quantumRunDescription(run({ simulation: 'exact statevector (torch, complex128)' }))).toBe(
      'exact statevector simulation (no shots)',
    );
    const sampled = run({
      simulation: 'training loss from probabilities sampled with 2048 shots per row; test scores exact',
      shots: 2048,
    });
    expect(quantumRunDescription(sampled)).toBe('ideal simulator with 2,048 shots');
    expect(quantumRunDescription({ quantum_run: null })).toBeNull();
    expect(quantumRunDescription({})).toBeNull();
    expect(quantumRunDescription(null)).toBeNull();
  });
});
