import { useCallback, useEffect, useRef, useState } from 'react';
import { deleteApplication, type ApplicationSummary } from '../../api/applications';
import { BANNER_MS, REFRESH_AFTER_DELETE_MS } from './dashboard-rules';
import { useModalFocus } from '../../components/use-modal-focus';

/** Section 8's wording, spelling included. */
export const DELETING = 'Deleting Your Appication...';
export const DELETED = 'The Application has been successfully deleted.';
export const DELETE_FAILED = 'Failed to delete application. Please try again later.';

type Banner = { tone: 'success' | 'error'; text: string };

/**
 * Section 4's delete: the menu asks, a confirm dialog (No, cancel / Yes, I'm sure), a blocking
 * overlay while the call runs, then a banner that hides after 5 s; after a deletion the list is
 * fetched again 5 s later (the deleted application leaves the page at once).
 */
export function useDeleteFlow(
  userId: number | undefined,
  onDeleted: (appId: number) => void,
  refresh: () => void,
) {
  const [asked, setAsked] = useState<ApplicationSummary | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [banner, setBanner] = useState<Banner | null>(null);
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);

  useEffect(() => () => timers.current.forEach(clearTimeout), []);
  const later = (ms: number, run: () => void) => timers.current.push(setTimeout(run, ms));

  const confirm = useCallback(async () => {
    if (!asked || userId === undefined) return;
    const app = asked;
    setAsked(null);
    setDeleting(true);
    let outcome: Banner;
    try {
      await deleteApplication(app.id, userId);
      outcome = { tone: 'success', text: DELETED };
      onDeleted(app.id);
      later(REFRESH_AFTER_DELETE_MS, refresh);
    } catch {
      outcome = { tone: 'error', text: DELETE_FAILED };
    }
    setDeleting(false);
    setBanner(outcome);
    later(BANNER_MS, () => setBanner((shown) => (shown === outcome ? null : shown)));
  }, [asked, userId, onDeleted, refresh]);

  const view = (
    <>
      {banner && (
        <p className={`delete-banner ${banner.tone}`} role={banner.tone === 'error' ? 'alert' : 'status'}>
          {banner.text}
        </p>
      )}
      {asked && (
        <ConfirmDelete app={asked} onCancel={() => setAsked(null)} onConfirm={() => void confirm()} />
      )}
      {deleting && (
        <div className="blocking-overlay" role="status" aria-live="assertive">
          <span className="spinner" aria-hidden="true" />
          <p>{DELETING}</p>
        </div>
      )}
    </>
  );
  return { ask: setAsked, view };
}

function ConfirmDelete({
  app,
  onCancel,
  onConfirm,
}: {
  app: ApplicationSummary;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const ref = useModalFocus<HTMLDivElement>(onCancel);
  return (
    <div className="modal-backdrop" role="presentation" onClick={onCancel}>
      <div
        ref={ref}
        className="modal confirm-delete"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="confirm-delete-title"
        aria-describedby="confirm-delete-text"
        onClick={(event) => event.stopPropagation()}
      >
        <h2 id="confirm-delete-title">Delete application</h2>
        <p id="confirm-delete-text">
          Are you sure you want to delete <strong>{app.app_name}</strong> (ID {app.id}) and its outputs?
        </p>
        <div className="modal-actions">
          <button type="button" className="button secondary" onClick={onCancel} data-autofocus>
            No, cancel
          </button>
          <button type="button" className="button danger" onClick={onConfirm}>
            Yes, I&apos;m sure
          </button>
        </div>
      </div>
    </div>
  );
}
