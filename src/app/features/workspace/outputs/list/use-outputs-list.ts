import { useCallback, useEffect, useRef, useState } from 'react';
import { listOutputs, type OutputSummary } from '../../../../api/applications';
import { isOngoing, onOutputStatus, OUTPUTS_POLL_MS } from '../../../../api/output-status';
import type { OutputsTabProps } from '../../workspace-types';

export interface OutputsList {
  /** null until the first read. */
  outputs: OutputSummary[] | null;
  error: string | null;
  setError(message: string | null): void;
  /** Reads the list again now. */
  refresh(): Promise<void>;
}

/**
 * The application's outputs as both Outputs tabs list them: read at once and whenever `refreshKey`
 * changes, polled while a run has just started or any output is Ongoing (spec section 4), the total
 * reported through `onCountChange`. `onListed` sees each list read (e.g. to drop deleted selections).
 * A final status the page read elsewhere (the open output's detail or live stream) is shown at once,
 * and a list read that left before the run ended does not bring 'running' back.
 */
export function useOutputsList({
  applicationId,
  running,
  refreshKey,
  onCountChange,
  onListed,
}: Pick<OutputsTabProps, 'applicationId' | 'running' | 'refreshKey' | 'onCountChange'> & {
  onListed?(found: OutputSummary[]): void;
}): OutputsList {
  const [outputs, setOutputs] = useState<OutputSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Final statuses reported while this list is shown: a final status is the last word on an output. */
  const finals = useRef(new Map<number, string>());
  /** The output with the final status reported for it, when its own still says it is ongoing. */
  const withFinal = useCallback((output: OutputSummary): OutputSummary => {
    const final = finals.current.get(output.id);
    return final && isOngoing(output.status) ? { ...output, status: final } : output;
  }, []);

  // The latest callbacks, so that a parent passing new functions each render does not refetch the list.
  const reportCount = useRef(onCountChange);
  const listed = useRef(onListed);
  useEffect(() => {
    reportCount.current = onCountChange;
    listed.current = onListed;
  }, [onCountChange, onListed]);
  const refresh = useCallback(
    () =>
      listOutputs(applicationId).then(
        (read) => {
          const found = read.map(withFinal);
          setOutputs(found);
          setError(null);
          reportCount.current(found.length);
          listed.current?.(found);
        },
        (e: Error) => setError(e.message),
      ),
    [applicationId, withFinal],
  );
  useEffect(
    () =>
      onOutputStatus((id, status) => {
        if (isOngoing(status)) return;
        finals.current.set(id, status);
        setOutputs((list) =>
          list?.some((output) => withFinal(output) !== output) ? list.map(withFinal) : list,
        );
      }),
    [withFinal],
  );
  // refreshKey changes when a run starts: the list is read again at once.
  useEffect(() => {
    void refresh();
  }, [refresh, refreshKey]);
  const anyOngoing = outputs?.some((output) => isOngoing(output.status)) ?? false;
  useEffect(() => {
    if (!running && !anyOngoing) return;
    const timer = setInterval(() => void refresh(), OUTPUTS_POLL_MS);
    return () => clearInterval(timer);
  }, [running, anyOngoing, refresh]);

  return { outputs, error, setError, refresh };
}
