// What every output list reads of an output's status: which statuses are final, how often a list with
// an unfinished output is read again, and the empty text.

/** Spec section 2: the empty text of an output list. */
export const NO_OUTPUTS = 'No outputs found';
/** Spec section 4: while running, or while any output is Ongoing, an output list is read again this often. */
export const OUTPUTS_POLL_MS = 2000;

/** Spec section 4: these three are final; any other status is shown as Ongoing. */
const FINAL: readonly string[] = ['Completed', 'Failed', 'Manual Stop'];

export function isOngoing(status: string): boolean {
  return !FINAL.includes(status);
}

type StatusListener = (outputId: number, status: string) => void;
const listeners = new Set<StatusListener>();
/** The last status read of each output, for a listener that starts after the read (a run done at once). */
const lastSeen = new Map<number, string>();

/**
 * Every read of an output's status (its detail, an outputs list, its live stream) is announced here, so
 * whatever waits on a run (the running banner, the Run buttons) follows the status the page shows instead
 * of its own slower poll.
 */
export function reportOutputStatus(outputId: number, status: string): void {
  lastSeen.set(outputId, status);
  for (const listener of listeners) listener(outputId, status);
}

/** Calls `listener` on each status reported from now on; returns the unsubscribe. */
export function onOutputStatus(listener: StatusListener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** The last status reported for the output, if any was. */
export function lastOutputStatus(outputId: number): string | undefined {
  return lastSeen.get(outputId);
}
