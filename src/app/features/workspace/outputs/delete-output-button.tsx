import { useState } from 'react';
import './outputs.css';
import { deleteOutput } from '../../../api/outputs';

/** What Delete asks before it removes an output for good. */
export const deleteQuestion = (outputId: number) =>
  `Delete output #${outputId}? Its results, logs and trained model are removed and cannot be restored.`;

/**
 * Delete of one output (spec workspace.md section 7, DELETE /application-outputs/{id}/delete), asked
 * first; an unfinished run is stopped by the server before it is removed. `onDeleted` runs once the
 * server has deleted it; a refusal is shown beside the button.
 */
export function DeleteOutputButton({ outputId, onDeleted }: { outputId: number; onDeleted(): void }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await deleteOutput(outputId);
      onDeleted();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    <>
      {asking ? (
        <span className="stop-confirm" role="group" aria-label="Confirm delete">
          <span role="alert">{deleteQuestion(outputId)}</span>{' '}
          <button type="button" className="button danger" onClick={() => void remove()} disabled={busy}>
            Yes, delete
          </button>{' '}
          <button type="button" className="button secondary" onClick={() => setAsking(false)} disabled={busy}>
            No, keep it
          </button>
        </span>
      ) : (
        <button type="button" className="button danger" onClick={() => setAsking(true)}>
          Delete Output
        </button>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
