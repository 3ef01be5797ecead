import { useCallback, useEffect, useState } from 'react';
import { mapJobRequest, validateJobBody, type AppData } from '../../engine';
import { browserRegistry } from '../../renderers/browser-registry';
import type { ToastAction } from '../components/toasts';
import { isOngoing, lastOutputStatus, onOutputStatus, OUTPUTS_POLL_MS } from './output-status';
import { executeJob, getOutputDetail, RUN_FAILED, RUNNING } from './outputs';
import { NOT_LOGGED_IN } from '../session/not-logged-in';
/** Spec section 8: a run whose body the engine cannot complete from the saved data. */
export const FILL_REQUIRED = 'Please fill the required fields in the Dataset and Configurations tabs.';

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
 * stays on while the started output is unfinished, and the Run buttons are disabled meanwhile: it ends as
 * soon as any read on the page (the output's detail or live stream, an outputs list) reports a final
 * status, else at the hook's own read every OUTPUTS_POLL_MS (a fixed timer, as the spec's 9 s, outlives
 * short runs and ends before long ones). Used by the application detail's
 * quick run (saved app_data) and by the workspace (its current app_data, saved first through beforeExecute).
 */
export function useRunApplication(
  app: RunnableApplication | null,
  userId: number | null,
  onStarted: (outputId: number) => void,
  notify?: (tone: 'success' | 'error', text: string, action?: ToastAction) => void,
) {
  const [starting, setStarting] = useState(false);
  /** The output this hook started and still follows (null once it is final). */
  const [following, setFollowing] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (following === null) return;
    // Whatever the page reads of the output (its detail, its stream, a list) ends the wait at once; the
    // poll below covers a page that shows none of them.
    const unsubscribe = onOutputStatus((id, status) => {
      if (id === following && !isOngoing(status)) setFollowing(null);
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const check = async () => {
      try {
        const { status } = await getOutputDetail(following);
        if (!isOngoing(status)) return setFollowing(null);
      } catch {
        // Unreadable (deleted, signed out): nothing left to wait for.
        return setFollowing(null);
      }
      if (!stopped) timer = setTimeout(() => void check(), OUTPUTS_POLL_MS);
    };
    // A list read right after the start may have seen it final before this listener was there.
    const known = lastOutputStatus(following);
    if (known !== undefined && !isOngoing(known)) timer = setTimeout(() => setFollowing(null), 0);
    else timer = setTimeout(() => void check(), OUTPUTS_POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
      unsubscribe();
    };
  }, [following]);

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
      setStarting(true);
      try {
        await options.beforeExecute?.();
        const { output_id } = await executeJob(
          query ? `${request.path}?${query}` : request.path,
          request.body,
        );
        setFollowing(output_id);
        notify?.('success', RUNNING, options.startedAction);
        onStarted(output_id);
      } catch (e) {
        fail(e instanceof Error ? e.message : String(e));
      } finally {
        setStarting(false);
      }
    },
    [app, userId, onStarted, notify],
  );

  return { run, running: starting || following !== null, error };
}
