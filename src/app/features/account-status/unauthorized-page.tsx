import { Link } from 'react-router';

export const NO_ROLE = 'No role has been assigned to your account yet. Please contact the admin.';

/** /unauthorized: signed in, verified and approved, but without a role. */
export function UnauthorizedPage() {
  return (
    <section className="page status-page">
      <div className="card status-card">
        <p className="status-icon error" aria-hidden="true">
          !
        </p>
        <h1>Unauthorized</h1>
        <p>{NO_ROLE}</p>
        <div className="status-actions">
          <Link className="button primary" to="/">
            Go to Home
          </Link>
        </div>
      </div>
    </section>
  );
}
