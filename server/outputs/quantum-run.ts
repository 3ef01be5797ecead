// Where a quantum output's circuits ran, in words, from what the worker's result states (not from the form):
// the result contract's `quantum_run` (simulation, noise_model, device, the noisy or device run's summary
// `backend_run`, `noisy_training` when the model trained on the exact noisy channel, and what was measured
// after training).

import type { JobResult, QuantumRun } from '../jobs/job-result';

/** A backend's name (fake_kyiv, ibm_kyiv) as the problem's form labels it; the name itself without one. */
export type BackendLabeller = (name: string) => string;
const asIs: BackendLabeller = (name) => name;

const count = (n: number) => n.toLocaleString('en-US');
const shotsText = (shots: number | null | undefined) =>
  typeof shots === 'number' ? ` with ${count(shots)} shots` : '';

/**
 * The 'Quantum Backend' line of an output from its result, e.g. 'trained under the fake_kyiv noise model
 * (exact noisy channel), test predictions on Aer with 1,024 shots'; null when the result states no run
 * (a classical model, an output from before the worker said, a run still going).
 */
export function quantumRunDescription(
  result: Pick<JobResult, 'quantum_run'> | null,
  label: BackendLabeller = asIs,
): string | null {
  const run: QuantumRun | null | undefined = result?.quantum_run;
  if (!run) return null;
  const backend = run.backend_run;
  const simulation = run.simulation;
  if (!backend) {
    if (/\bshots?\b/.test(simulation)) {
      const shots = typeof run.shots === 'number' ? run.shots : null;
      return shots === null ? `ideal simulator, sampled with shots` : `ideal simulator${shotsText(shots)}`;
    }
    return 'exact statevector simulation (no shots)';
  }
  const onDevice = backend.provider_job_ids !== undefined || backend.local_testing_mode !== undefined;
  const device = label(backend.device ?? run.device ?? '');
  const noise = label(backend.noise_model ?? run.noise_model ?? '');
  const shots = shotsText(backend.shots);
  const circuits =
    typeof backend.circuits_run === 'number'
      ? ` (${count(backend.circuits_run)} circuit${backend.circuits_run === 1 ? '' : 's'})`
      : '';
  const where = onDevice
    ? `on the device ${device}${backend.local_testing_mode === true ? ' in local testing mode (its fake backend)' : ''}`
    : 'on Aer';
  const under = onDevice ? `under ${device}'s calibration` : `under the ${noise} noise model`;
  const measured = run.measured_after_training;
  if (run.noisy_training) {
    return `trained ${under} (exact noisy channel), ${measured} ${where}${shots}${circuits}`;
  }
  if (/^trained on the exact/i.test(simulation)) {
    const tested = onDevice ? where : `under the ${noise} noise model ${where}`;
    return `trained on the exact statevector simulator, ${measured} ${tested}${shots}${circuits}`;
  }
  return onDevice
    ? `ran ${where}${shots}${circuits}`
    : `ran under the ${noise} noise model ${where}${shots}${circuits}`;
}
