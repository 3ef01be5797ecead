import { useCallback, useEffect, useRef, useState } from 'react';
import { mapJobRequest, validateJobBody, type AppData } from '../../engine';
import { browserRegistry } from '../../renderers/browser-registry';
import type { ToastAction } from '../components/toasts';
import { executeJob, RUN_FAILED, RUNNING } from './outputs';

/** Spec sections 4 and 9: after a run starts, the running flag stays on for 9 seconds. */
export const RUNNING_FLAG_MS = 9000;
/** Spec section 8: a run whose body the engine cannot complete from the saved data. */
export const FILL_REQUIRED = 'Please fill the required fields in the Dataset and Configurations tabs.';
/** Spec section 8: a run without a signed-in user. */
export const NOT_LOGGED_IN = 'User is not logged in!';

export interface RunnableApplication {
  id: number;
  app_problem_id: string;
  app_data: Record<string, unknown> | null | undefined;
}

export interface RunOptions {
  /** The app_data to run (default: the application's saved app_data). The workspace passes its own. */
  appData?: AppData;
  /** Runs after the checks and before the job is sent (the workspace saves here); a rejection stops the run. */
  beforeExecute?: () => Promise<void>;
  /** A button on the 'Application is running.' toast (the workspace's 'Go to output tab'). */
  startedAction?: ToastAction;
}

/**
 * The application's run: the engine maps the app_data to the problem's execute-job request (context: the
 * application and user ids), the body is checked against the job-body schema, then POSTed. `running`
 * stays on for 9 s after a start (the button is disabled meanwhile). Used by the application detail's
 * quick run (saved app_data) and by the workspace (its current app_data, saved first through beforeExecute).
 */
export function useRunApplication(
  app: RunnableApplication | null,
  userId: number | null,
  onStarted: (outputId: number) => void,
  notify?: (tone: 'success' | 'error', text: string, action?: ToastAction) => void,
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

  const run = useCallback(
    async (options: RunOptions = {}) => {
      setError(null);
      const fail = (text: string) => {
        setError(text);
        notify?.('error', text);
      };
      if (!app) return;
      if (userId === null) return fail(NOT_LOGGED_IN);
      const problem = browserRegistry().findProblem(app.app_problem_id);
      if (!problem) return fail(`${RUN_FAILED} Unknown problem ${app.app_problem_id}`);
      const appData = options.appData ?? ((app.app_data ?? {}) as AppData);
      const request = mapJobRequest(problem, appData, { applicationId: app.id, userId });
      if (!validateJobBody(problem, request.body).valid) return fail(FILL_REQUIRED);
      const query = new URLSearchParams(
        Object.entries(request.query).map(([k, v]) => [k, String(v)] as [string, string]),
      ).toString();
      setRunning(true);
      try {
        await options.beforeExecute?.();
        const { output_id } = await executeJob(
          query ? `${request.path}?${query}` : request.path,
          request.body,
        );
        notify?.('success', RUNNING, options.startedAction);
        onStarted(output_id);
        if (timer.current) clearTimeout(timer.current);
        timer.current = setTimeout(() => setRunning(false), RUNNING_FLAG_MS);
      } catch (e) {
        setRunning(false);
        fail(e instanceof Error ? e.message : String(e));
      }
    },
    [app, userId, onStarted, notify],
  );

  return { run, running, error };
}
