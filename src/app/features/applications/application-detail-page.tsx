import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { StatusBadge } from '../../components/status-badge';
import { formatTimestamp } from '../../format/dates';
import { listOutputs, type OutputSummary } from './api';
import './applications.css';
import { useApplicationOr404 } from './use-application-or-404';
import { workspacePath } from './workspace-path';

type BadgeStatus = Parameters<typeof StatusBadge>[0]['status'];

export const NO_OUTPUTS = 'No outputs found';

/**
 * /applications/:appId (spec section 2, application detail): 'Apps' back, 'Application Detail', the
 * application's name and problem, and its outputs. A failed load goes to /error/404 (section 8).
 */
export function ApplicationDetailPage() {
  const { appId } = useParams();
  const navigate = useNavigate();
  const { id, app } = useApplicationOr404(appId);
  const [outputs, setOutputs] = useState<OutputSummary[] | null>(null);
  const [outputsError, setOutputsError] = useState<string | null>(null);

  useEffect(() => {
    if (id === null) return;
    let cancelled = false;
    listOutputs(id)
      .then((found) => !cancelled && setOutputs(found))
      .catch((error: Error) => !cancelled && setOutputsError(error.message));
    return () => {
      cancelled = true;
    };
  }, [id]);

  return (
    <section className="page application-detail">
      <div className="detail-head">
        <button type="button" className="button secondary" onClick={() => void navigate('/profile')}>
          ← Apps
        </button>
        <h1>Application Detail</h1>
      </div>
      {!app ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          <div className="card">
            <dl className="detail-summary">
              <dt>Application Name</dt>
              <dd>{app.app_name}</dd>
              <dt>Application Problem</dt>
              <dd>{app.app_problem.name}</dd>
              <dt>Application ID</dt>
              <dd>{app.id}</dd>
              <dt>Updated Date</dt>
              <dd>{formatTimestamp(app.updated_at)}</dd>
            </dl>
            <Link className="button primary" to={workspacePath(app.app_problem, app)}>
              Open workspace
            </Link>
          </div>
          <h2>Outputs</h2>
          {outputsError ? (
            <p className="form-error" role="alert">
              {outputsError}
            </p>
          ) : (
            <div className="applications-table-wrap">
              <table className="applications-table">
                <thead>
                  <tr>
                    <th>Output Id</th>
                    <th>Status</th>
                    <th>Created Date</th>
                    <th>Completed</th>
                    <th>Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {outputs === null ? (
                    <tr>
                      <td colSpan={5} className="empty-cell">
                        Loading…
                      </td>
                    </tr>
                  ) : outputs.length === 0 ? (
                    <tr>
                      <td colSpan={5} className="empty-cell">
                        {NO_OUTPUTS}
                      </td>
                    </tr>
                  ) : (
                    outputs.map((output) => (
                      <tr key={output.id}>
                        <td>{output.id}</td>
                        <td>
                          <StatusBadge status={output.status as BadgeStatus} />
                        </td>
                        <td>{formatTimestamp(output.created_at)}</td>
                        <td>{formatTimestamp(output.completed_at)}</td>
                        <td>
                          {/* The output view is issue #10's; until it exists the action says so. */}
                          <button
                            type="button"
                            className="button secondary"
                            disabled
                            title="The output view comes with job runs (issue #10)"
                          >
                            View Details
                          </button>
                        </td>
                      </tr>
                    ))
                  )}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
