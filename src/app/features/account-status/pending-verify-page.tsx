import { useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import { resendVerification } from '../../session/api/resend-verification';
import { readStoredEmail } from '../../session/stored-email';
import { useElapsed } from './use-elapsed';

function storedEmailOrEmpty(): string {
  try {
    return readStoredEmail();
  } catch {
    return '';
  }
}

/** /pending-verify: the e-mail is not verified yet; a running timer and a way to get the link again. */
export function PendingVerifyPage() {
  const elapsed = useElapsed();
  const [email] = useState(storedEmailOrEmpty);
  const [note, setNote] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function resend() {
    setBusy(true);
    try {
      const reply = await resendVerification(email);
      setNote({ tone: 'ok', text: reply.message ?? 'If the account exists, a new link is on its way.' });
    } catch (error) {
      setNote({
        tone: 'error',
        text: error instanceof ApiError ? error.message : 'Failed to send. Try again.',
      });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="page status-page">
      <div className="card status-card">
        <p className="status-icon" aria-hidden="true">
          ✉
        </p>
        <h1>Verification Required</h1>
        <p className="timer" aria-label="Time waiting">
          {elapsed}
        </p>
        <p>
          A verification e-mail{' '}
          {email ? (
            <>
              is on its way to <strong>{email}</strong>
            </>
          ) : (
            'will be sent shortly'
          )}
          . Open the link in it to verify your address; an admin can also send it again.
        </p>
        {note && <p className={note.tone === 'ok' ? 'form-success' : 'form-error'}>{note.text}</p>}
        <div className="status-actions">
          {email && (
            <button className="button secondary" onClick={resend} disabled={busy}>
              Send the link again
            </button>
          )}
          <Link className="button primary" to="/">
            Go to Home
          </Link>
        </div>
      </div>
    </section>
  );
}
