// Where a quantum output's circuits ran, in words, from what the worker's result states (not from the form):
// the quantum models report `simulation`, `noise_model`, `device`, `backend_run` (the noisy Aer or device
// runner's summary: shots, circuits_run, provider_job_ids...) and `noisy_training` (ADAM or the hybrid's
// training on the exact noisy channel), at the top of the result, under `config` (fraud) or `quantum_run`
// (the forecasters).

/** A backend's name (fake_kyiv, ibm_kyiv) as the problem's form labels it; the name itself without one. */
export type BackendLabeller = (name: string) => string;
const asIs: BackendLabeller = (name) => name;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const count = (n: number) => n.toLocaleString('en-US');
const shotsText = (shots: unknown) => (typeof shots === 'number' ? ` with ${count(shots)} shots` : '');

/** The result's object stating the run (a string `simulation`), searched breadth-first to depth 3. */
export function quantumRunOf(result: Record<string, unknown> | null): Record<string, unknown> | null {
  let level: Record<string, unknown>[] = result ? [result] : [];
  for (let depth = 0; depth < 3 && level.length > 0; depth++) {
    const found = level.find(
      (o) => typeof o.simulation === 'string' && ('backend_run' in o || 'noise_model' in o),
    );
    if (found) return found;
    level = level.flatMap((o) => Object.values(o).filter(isObject));
  }
  return null;
}

/** The phase that ran on the noisy simulator or device after training: by the problem's kind of output. */
const finalPhase = (problem: string) =>
  problem === 'portfolio-optimization' || problem === 'vehicle-routing'
    ? 'the final circuit measured'
    : 'test predictions';

/**
 * The 'Quantum Backend' line of an output from its result, e.g. 'trained under the fake_kyiv noise model
 * (exact noisy channel), test predictions on Aer with 1,024 shots'; null when the result states no run
 * (a classical model, an output from before the worker said, a run still going).
 */
export function quantumRunDescription(
  problem: string,
  result: Record<string, unknown> | null,
  label: BackendLabeller = asIs,
): string | null {
  const run = quantumRunOf(result);
  if (!run) return null;
  const backend = isObject(run.backend_run) ? run.backend_run : null;
  const simulation = String(run.simulation);
  if (!backend) {
    if (/\bshots?\b/.test(simulation)) {
      const shots = typeof run.shots === 'number' ? run.shots : null;
      return shots === null ? `ideal simulator, sampled with shots` : `ideal simulator${shotsText(shots)}`;
    }
    return 'exact statevector simulation (no shots)';
  }
  const onDevice = 'provider_job_ids' in backend || 'local_testing_mode' in backend;
  const device = label(String(backend.device ?? run.device ?? ''));
  const noise = label(String(backend.noise_model ?? run.noise_model ?? ''));
  const shots = shotsText(backend.shots);
  const circuits =
    typeof backend.circuits_run === 'number'
      ? ` (${count(backend.circuits_run)} circuit${backend.circuits_run === 1 ? '' : 's'})`
      : '';
  const where = onDevice
    ? `on the device ${device}${backend.local_testing_mode === true ? ' in local testing mode (its fake backend)' : ''}`
    : 'on Aer';
  const under = onDevice ? `under ${device}'s calibration` : `under the ${noise} noise model`;
  if (isObject(run.noisy_training)) {
    return `trained ${under} (exact noisy channel), ${finalPhase(problem)} ${where}${shots}${circuits}`;
  }
  if (/^trained on the exact/i.test(simulation)) {
    const tested = onDevice ? where : `under the ${noise} noise model ${where}`;
    return `trained on the exact statevector simulator, ${finalPhase(problem)} ${tested}${shots}${circuits}`;
  }
  return onDevice
    ? `ran ${where}${shots}${circuits}`
    : `ran under the ${noise} noise model ${where}${shots}${circuits}`;
}
