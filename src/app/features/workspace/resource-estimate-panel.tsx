import type { AppData, EngineContext, Problem } from '../../../engine';
import type { ResourceEstimate } from './estimate-api';
import { useResourceEstimate } from './use-resource-estimate';

export const ESTIMATE_HEADING = 'Resource estimate';
export const ESTIMATE_INCOMPLETE = 'Fill the required fields to see the resources this configuration needs.';
export const ESTIMATE_QUANTUM_ONLY =
  'The resource estimate applies to quantum models only: this configuration runs no quantum circuit.';
export const ESTIMATE_REFUSED = 'The resource estimate could not be made:';

/** A run time in words: seconds below a minute, then minutes, then hours. */
export function formatDuration(seconds: number): string {
  if (seconds < 1) return 'under 1 s';
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

/** A described unit after its number: one circuit reads '1 circuit (...)', not '1 circuits (...)'. */
export function describedUnit(unit: string, n: number): string {
  return n === 1 ? unit.replace(/^(\w+?)s\b/, '$1') : unit;
}

const count = (n: number | null | undefined, none: string) =>
  n === null || n === undefined ? none : n.toLocaleString('en-US');

/** What a noisy run will ask of the simulator, in words: '41 simulator calls running 41 circuits'. */
export function noisyPlan(calls: number, circuits: number | null): string {
  const callWords = `${count(calls, '')} simulator call${calls === 1 ? '' : 's'}`;
  if (circuits === null) return callWords;
  return `${callWords} running ${count(circuits, '')} circuit${circuits === 1 ? '' : 's'}`;
}

/**
 * A figure of one run, and of all of them when the estimate is for repeated seeds: the worker reports both
 * (its all_repeats), so the panel never multiplies.
 */
export function perRunText(perRun: string, total: string | null, repeats: number | null | undefined): string {
  if (repeats === null || repeats === undefined || repeats <= 1 || total === null) return perRun;
  return `${perRun} per run, ${total} for ${repeats} repeats`;
}

/** The run time of one run, and of all of them (the worker's total) when the estimate is for repeats. */
export function runTimeText(
  seconds: number,
  totalSeconds: number | null | undefined,
  repeats: number | null | undefined,
): string {
  return perRunText(
    formatDuration(seconds),
    typeof totalSeconds === 'number' ? formatDuration(totalSeconds) : null,
    repeats,
  );
}

function EstimateFigures({ estimate }: { estimate: ResourceEstimate }) {
  const unit = estimate.evaluation_unit ?? 'iteration';
  const totals = estimate.all_repeats;
  const rows: [string, string][] = [
    ['Qubits', count(estimate.qubits, '—')],
    [
      estimate.transpiled_for ? `Circuit depth (transpiled for ${estimate.transpiled_for})` : 'Circuit depth',
      count(estimate.depth, '—'),
    ],
    ['Two-qubit gates', count(estimate.two_qubit_gates, '—')],
    // The worker names a bare unit ('epoch') or describes what it counts ('circuits (one per training row
    // per evaluation)'): the first reads as 'per epoch', the second after the number.
    /^\w+$/.test(unit)
      ? [`Circuit evaluations per ${unit}`, count(estimate.evaluations_per_iteration, 'not counted')]
      : [
          'Circuit evaluations',
          estimate.evaluations_per_iteration === null || estimate.evaluations_per_iteration === undefined
            ? 'not counted'
            : `${count(estimate.evaluations_per_iteration, '')} ${describedUnit(unit, estimate.evaluations_per_iteration)}`,
        ],
    [
      'Total shots',
      typeof estimate.total_shots === 'number'
        ? perRunText(
            count(estimate.total_shots, ''),
            typeof totals?.total_shots === 'number' ? count(totals.total_shots, '') : null,
            estimate.repeats,
          )
        : 'none (exact statevector simulation)',
    ],
    // SPSA's calibration counts here, so this can exceed iterations x evaluations per iteration.
    ...(typeof estimate.optimizer_evaluations === 'number'
      ? [
          ['Optimizer evaluations (all of the run)', count(estimate.optimizer_evaluations, '')] as [
            string,
            string,
          ],
        ]
      : []),
    ...(typeof estimate.simulator_calls === 'number'
      ? [
          ['Noisy simulation', noisyPlan(estimate.simulator_calls, estimate.noisy_circuits_run ?? null)] as [
            string,
            string,
          ],
        ]
      : []),
    [
      'Estimated run time (measured on this server)',
      estimate.estimated_seconds === null || estimate.estimated_seconds === undefined
        ? 'not measurable on this server'
        : runTimeText(estimate.estimated_seconds, totals?.estimated_seconds, estimate.repeats),
    ],
  ];
  return (
    <dl className="estimate-figures">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Issue #12 "Resource estimate before running": under the model form, the resources of the quantum circuit
 * the current form values would run (qubits, depth and two-qubit gates after transpiling, evaluations,
 * shots and a run time timed on this server), refreshed as the form changes.
 */
export function ResourceEstimatePanel({
  problem,
  appData,
  context,
}: {
  problem: Problem;
  appData: AppData;
  context: EngineContext;
}) {
  const state = useResourceEstimate(problem, appData, context);
  if (state.phase === 'unavailable') return null;
  return (
    <section className="resource-estimate" aria-labelledby="resource-estimate-heading" aria-live="polite">
      <h3 id="resource-estimate-heading">{ESTIMATE_HEADING}</h3>
      {state.phase === 'incomplete' && <p className="muted">{ESTIMATE_INCOMPLETE}</p>}
      {state.phase === 'loading' && <p className="muted">Estimating…</p>}
      {state.phase === 'classical' && <p className="muted">{ESTIMATE_QUANTUM_ONLY}</p>}
      {state.phase === 'refused' && (
        <p className="form-error" role="alert">
          {ESTIMATE_REFUSED} {state.detail}
        </p>
      )}
      {state.phase === 'ready' && (
        <>
          <EstimateFigures estimate={state.estimate} />
          {state.estimate.note && <p className="muted">{state.estimate.note}</p>}
        </>
      )}
    </section>
  );
}
