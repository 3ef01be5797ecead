import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { getApprovalStatus, type ApprovalStatus } from '../../session/api/approval-status';
import { hasErrors } from '../../session/field-errors';
import { checkAccountForm } from '../../session/form-rules';
import { readStoredEmail, rememberEmail, STORED_EMAIL_KEY } from '../../session/stored-email';
import { useElapsed } from './use-elapsed';

/** Spec section 9: the approval status is asked on load and every 15 s. */
export const APPROVAL_POLL_MS = 15_000;
export const WAITING_FOR_ADMIN = 'Email verified. Waiting for admin approval...';
const NOT_VERIFIED = 'Your e-mail address is not verified yet. Open the link in the verification e-mail.';
const STATUS_FAILED = 'Could not check the approval status. Retrying shortly.';

function initialEmail(): { email: string; error: string } {
  try {
    return { email: readStoredEmail(), error: '' };
  } catch {
    return { email: '', error: 'Cannot access saved e-mail. Please enter your email manually.' };
  }
}

/** The line shown for a status that is not yet both verified and approved. */
export const statusLine = (status: ApprovalStatus): string =>
  status.email_verified ? WAITING_FOR_ADMIN : NOT_VERIFIED;

/** /waiting-admin-approval: polls the status; approved and verified goes to /approved-account. */
export function WaitingApprovalPage() {
  const navigate = useNavigate();
  const elapsed = useElapsed();
  const [{ email, error: storageError }, setStored] = useState(initialEmail);
  const [draft, setDraft] = useState('');
  const [draftError, setDraftError] = useState(storageError);
  const [line, setLine] = useState('');

  useEffect(() => {
    if (!email) return;
    let live = true;
    const check = () =>
      getApprovalStatus(email).then(
        (status) => {
          if (!live) return;
          if (status.email_verified && status.is_approved) {
            rememberEmail(null);
            navigate('/approved-account', { replace: true });
          } else setLine(statusLine(status));
        },
        (error: unknown) => live && setLine(error instanceof ApiError ? error.message : STATUS_FAILED),
      );
    void check();
    const id = setInterval(() => void check(), APPROVAL_POLL_MS);
    return () => {
      live = false;
      clearInterval(id);
    };
  }, [email, navigate]);

  function saveEmail(event: FormEvent) {
    event.preventDefault();
    const found = checkAccountForm('approval-email', { email: draft.trim() });
    // The approval-email form has one field: its message is the one error there is.
    const problem = found.email ?? Object.values(found).find(Boolean);
    if (hasErrors(found) && problem) {
      setDraftError(problem);
      return;
    }
    try {
      localStorage.setItem(STORED_EMAIL_KEY, draft.trim());
      setDraftError('');
      setStored({ email: draft.trim(), error: '' });
    } catch {
      setDraftError('Failed to save email. Try again.');
    }
  }

  return (
    <section className="page status-page">
      <div className="card status-card">
        <p className="status-icon" aria-hidden="true">
          <svg width="30" height="30" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2">
            <circle cx="12" cy="12" r="9" />
            <path d="M12 7v5l3 2" strokeLinecap="round" />
          </svg>
        </p>
        <h1>Awaiting Admin Approval</h1>
        <p className="timer" aria-label="Time waiting">
          {elapsed}
        </p>
        {email ? (
          <>
            <p>
              Following <strong>{email}</strong>. This page checks every 15 seconds.
            </p>
            <p className="status-line" role="status">
              {line || 'Checking…'}
            </p>
          </>
        ) : (
          <form className="email-prompt" onSubmit={saveEmail} noValidate>
            <label>
              Your registration e-mail
              <input name="email" type="email" value={draft} onChange={(e) => setDraft(e.target.value)} />
            </label>
            <button type="submit" className="button primary">
              Check status
            </button>
            {draftError && <p className="field-error">{draftError}</p>}
          </form>
        )}
        <div className="status-actions">
          <Link className="button secondary" to="/">
            Go to Home
          </Link>
        </div>
      </div>
    </section>
  );
}
