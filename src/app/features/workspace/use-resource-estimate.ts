import { useEffect, useMemo, useState } from 'react';
import {
  mapJobExtension,
  mapJobRequest,
  validateJobBody,
  type AppData,
  type EngineContext,
  type Problem,
} from '../../../engine';
import { postResourceEstimate, type ResourceEstimate } from './estimate-api';

/** Quiet time after the last edit before the estimate is asked for (each answer runs the worker). */
export const ESTIMATE_DEBOUNCE_MS = 600;

export type EstimateState =
  /** The form does not make a valid job body yet (or no user): nothing to estimate. */
  | { phase: 'incomplete' }
  | { phase: 'loading' }
  | { phase: 'ready'; estimate: ResourceEstimate }
  /** The configuration runs no quantum circuit (the worker's refusal says so). */
  | { phase: 'classical' }
  /** The problem has no estimate route (404 from the route table, not a user refusal). */
  | { phase: 'unavailable' }
  | { phase: 'refused'; detail: string };

// The worker refuses a configuration without a circuit with 'the {model} model runs no quantum circuit' or
// 'problem ... has no quantum model to estimate' (worker/qmlstudio_worker/jobs/resource_estimate.py).
const NO_CIRCUIT = /no quantum (circuit|model)/i;

/**
 * The resource estimate of the form's current values: the engine maps app_data to the execute-job body
 * (as a run does); a valid body is POSTed ESTIMATE_DEBOUNCE_MS after the last change, a newer body aborts
 * the older request, and only the latest answer is kept.
 */
export function useResourceEstimate(
  problem: Problem,
  appData: AppData,
  context: EngineContext,
): EstimateState {
  const { userId, rowCount } = context;
  const body = useMemo(() => {
    if (userId === undefined || userId === null) return null;
    const request = mapJobRequest(problem, appData, context);
    return validateJobBody(problem, request.body).valid ? request.body : null;
  }, [problem, appData, context, userId]);
  // The noise model and the repeats travel in the job extension ('None': no noise); the estimate transpiles
  // for the noise model and reports the totals of all repeats.
  const { noise, repeats } = useMemo(() => {
    const extension = mapJobExtension(problem, appData, context);
    const chosen = extension.quantum_noise_model;
    return {
      noise: typeof chosen === 'string' && chosen !== 'None' ? chosen : undefined,
      repeats: typeof extension.repeats === 'number' ? extension.repeats : undefined,
    };
  }, [problem, appData, context]);
  // The request depends on the body's content, not on its identity (every edit maps a new object).
  const key = body ? JSON.stringify([body, rowCount ?? null, noise ?? null, repeats ?? null]) : null;
  // The answer is kept with the key it belongs to: a newer key shows 'loading' until its own answer.
  const [answer, setAnswer] = useState<{ key: string; state: EstimateState } | null>(null);

  useEffect(() => {
    if (key === null || body === null || userId === undefined) return;
    const controller = new AbortController();
    const settle = (state: EstimateState) => {
      if (!controller.signal.aborted) setAnswer({ key, state });
    };
    const timer = setTimeout(() => {
      postResourceEstimate(problem.id, userId, body, rowCount, controller.signal, noise, repeats)
        .then((outcome) => {
          if (outcome.ok) settle({ phase: 'ready', estimate: outcome.estimate });
          else if (outcome.status === 404) settle({ phase: 'unavailable' });
          else if (outcome.status === 400 && NO_CIRCUIT.test(outcome.detail)) settle({ phase: 'classical' });
          else settle({ phase: 'refused', detail: outcome.detail });
        })
        .catch((error: unknown) =>
          settle({ phase: 'refused', detail: error instanceof Error ? error.message : String(error) }),
        );
    }, ESTIMATE_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // `body`, `rowCount`, `noise` and `repeats` are captured through `key`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, problem.id, userId]);

  if (key === null) return { phase: 'incomplete' };
  return answer?.key === key ? answer.state : { phase: 'loading' };
}
