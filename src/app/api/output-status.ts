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
