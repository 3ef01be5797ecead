import { useCallback, useEffect, useRef, useState } from 'react';
import { mapJobRequest, validateJobBody, type AppData } from '../../../engine';
import { browserRegistry } from '../../../renderers/browser-registry';
import { executeJob, RUN_FAILED, RUNNING } from './api';

/** Spec sections 4 and 9: after a run starts, the running flag stays on for 9 seconds. */
export const RUNNING_FLAG_MS = 9000;
/** Spec section 8: a run whose body the engine cannot complete from the saved data. */
export const FILL_REQUIRED = 'Please fill the required fields in the Dataset and Configurations tabs.';

export interface RunnableApplication {
  id: number;
  app_problem_id: string;
  app_data: Record<string, unknown> | null | undefined;
}

/**
 * The application's quick run: the engine maps the saved app_data to the problem's execute-job request
 * (context: the application and user ids), the body is checked against the job-body schema, then POSTed.
 * `running` stays on for 9 s after a start (the button is disabled meanwhile).
 */
export function useRunApplication(
  app: RunnableApplication | null,
  userId: number | null,
  onStarted: (outputId: number) => void,
  notify?: (tone: 'success' | 'error', text: string) => void,
) {
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const run = useCallback(async () => {
    setError(null);
    const fail = (text: string) => {
      setError(text);
      notify?.('error', text);
    };
    if (!app) return;
    if (userId === null) return fail('User is not logged in!');
    const problem = browserRegistry().findProblem(app.app_problem_id);
    if (!problem) return fail(`${RUN_FAILED} Unknown problem ${app.app_problem_id}`);
    const request = mapJobRequest(problem, (app.app_data ?? {}) as AppData, {
      applicationId: app.id,
      userId,
    });
    if (!validateJobBody(problem, request.body).valid) return fail(FILL_REQUIRED);
    const query = new URLSearchParams(
      Object.entries(request.query).map(([k, v]) => [k, String(v)] as [string, string]),
    ).toString();
    setRunning(true);
    try {
      const { output_id } = await executeJob(query ? `${request.path}?${query}` : request.path, request.body);
      notify?.('success', RUNNING);
      onStarted(output_id);
      timer.current = setTimeout(() => setRunning(false), RUNNING_FLAG_MS);
    } catch (e) {
      setRunning(false);
      fail(e instanceof Error ? e.message : String(e));
    }
  }, [app, userId, onStarted, notify]);

  return { run, running, error };
}
