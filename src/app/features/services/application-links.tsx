import { Link } from 'react-router';
import { formatTimestamp } from '../../format/dates';
import type { ApplicationSummary } from '../../api/applications';
import { useAccountModals } from '../../session/account-modals';
import { useAuth } from '../../session/auth-context';
import { useMyApplications } from './use-my-applications';

/** A short list of applications, each opening its detail page (/applications/:id). */
export function ApplicationLinks({ applications }: { applications: ApplicationSummary[] }) {
  return (
    <ul className="application-links">
      {applications.map((application) => (
        <li key={application.id}>
          <Link to={`/applications/${application.id}`}>
            <strong>{application.app_name}</strong>
            <span className="muted">
              {application.app_problem.name} · updated {formatTimestamp(application.updated_at, 'date')}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/**
 * The signed-in user's applications (newest first, at most `limit`) as links, with 'Loading…', the
 * server's message or 'No applications found. Create one'; a visitor sees `signInMessage` and Login.
 */
export function MyApplicationLinks({ signInMessage, limit }: { signInMessage: string; limit?: number }) {
  const { user, loading } = useAuth();
  const { open } = useAccountModals();
  if (loading) return <p className="muted">Loading…</p>;
  if (user) return <LoadedApplicationLinks userId={user.id} limit={limit} />;
  return (
    <>
      <p className="muted">{signInMessage}</p>
      <button type="button" className="button primary" onClick={() => open('login')}>
        Login
      </button>
    </>
  );
}

function LoadedApplicationLinks({ userId, limit }: { userId: number; limit?: number }) {
  const mine = useMyApplications(userId);
  if (mine.state === 'loading') return <p className="muted">Loading…</p>;
  if (mine.state === 'failed')
    return (
      <p className="form-error" role="alert">
        {mine.message}
      </p>
    );
  if (mine.applications.length === 0)
    return (
      <p className="muted">
        No applications found. <Link to="/profile">Create one</Link>
      </p>
    );
  return <ApplicationLinks applications={mine.applications.slice(0, limit)} />;
}
