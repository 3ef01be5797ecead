import { useState } from 'react';
import './outputs.css';

/** What Stop asks before it ends a run (a stopped training cannot be resumed). */
export const STOP_QUESTION = 'Stop this run? The training ends now and cannot be resumed.';

/**
 * Stop of an unfinished output, asked first: the first click shows the question with 'Yes, stop' and
 * 'No, keep running'; only 'Yes, stop' calls `onStop`. Disabled while the stop is under way.
 */
export function StopButton({ onStop, stopping }: { onStop(): void; stopping: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className="button danger" onClick={() => setAsking(true)} disabled={stopping}>
        Stop
      </button>
    );
  return (
    <span className="stop-confirm" role="group" aria-label="Confirm stop">
      <span role="alert">{STOP_QUESTION}</span>{' '}
      <button
        type="button"
        className="button danger"
        onClick={() => {
          setAsking(false);
          onStop();
        }}
      >
        Yes, stop
      </button>{' '}
      <button type="button" className="button secondary" onClick={() => setAsking(false)}>
        No, keep running
      </button>
    </span>
  );
}
