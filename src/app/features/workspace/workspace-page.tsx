import { Link, useParams } from 'react-router';
import { formatTimestamp } from '../../format/dates';
import { useApplicationOr404 } from '../applications/use-application-or-404';

/**
 * /development/:problemId/:appId/:appName and /developmentbio/...: loads the application (a failed
 * load goes to /error/404, spec section 8) and says plainly that its workspace is not built yet.
 * The workspace itself (dataset, model configuration, pipeline, run) is issue #11.
 */
export function WorkspacePage() {
  const { appId } = useParams();
  const { app } = useApplicationOr404(appId);

  if (!app) return <p className="muted">Loading…</p>;
  return (
    <section className="page workspace-placeholder">
      <header className="page-header">
        <p className="muted">{app.app_problem.name}</p>
        <h1>{app.app_name}</h1>
        <p className="muted">
          Application ID {app.id} · updated {formatTimestamp(app.updated_at)}
        </p>
      </header>
      <div className="notice" role="note">
        <h2>The workspace is not built yet</h2>
        <p>
          Your application is saved. The workspace where you choose its dataset, set the model configuration,
          arrange the pipeline and run it comes with a later release (issue #11); nothing on this page edits
          or runs the application yet.
        </p>
      </div>
      <p>
        <Link className="button secondary" to={`/applications/${app.id}`}>
          Application detail
        </Link>{' '}
        <Link className="button secondary" to="/profile">
          Back to My Applications
        </Link>
      </p>
    </section>
  );
}
