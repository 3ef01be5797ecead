import { useCallback, useEffect, useState } from 'react';
import { TableMessageRow } from '../../components/table-message-row';
import { Link, useNavigate, useParams } from 'react-router';
import { StatusBadge } from '../../components/status-badge';
import { useOptionalToast } from '../../components/toasts';
import { formatTimestamp } from '../../format/dates';
import { useAuth } from '../../session/auth-context';
import { isOngoing, NO_OUTPUTS, OUTPUTS_POLL_MS } from '../../api/output-status';
import { useRunApplication } from '../../api/use-run-application';
import { listOutputs, type OutputSummary } from '../../api/applications';
import '../../styles/application-lists.css';
import { useApplicationOr404 } from '../../api/use-application-or-404';
import { workspacePath } from '../../routing/workspace-path';

type BadgeStatus = Parameters<typeof StatusBadge>[0]['status'];

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
  const { user } = useAuth();
  const notify = useOptionalToast();

  const refresh = useCallback(
    (appId: number) =>
      listOutputs(appId).then(
        (found) => {
          setOutputs(found);
          setOutputsError(null);
        },
        (error: Error) => setOutputsError(error.message),
      ),
    [],
  );
  const started = useCallback(() => {
    if (id !== null) void refresh(id);
  }, [id, refresh]);
  const { run, running, error: runError } = useRunApplication(app, user?.id ?? null, started, notify);

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

  // Spec section 4: the running flag and any Ongoing output drive the list's refresh.
  const anyOngoing = outputs?.some((output) => isOngoing(output.status)) ?? false;
  useEffect(() => {
    if (id === null || (!anyOngoing && !running)) return;
    const timer = setInterval(() => void refresh(id), OUTPUTS_POLL_MS);
    return () => clearInterval(timer);
  }, [id, anyOngoing, running, refresh]);

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
            <div className="detail-actions">
              <Link className="button primary" to={workspacePath(app.app_problem, app)}>
                Open workspace
              </Link>
              <button
                type="button"
                className="button primary"
                onClick={() => void run()}
                disabled={running}
                title="Runs the application with its saved data"
              >
                {running ? 'Running…' : 'Run'}
              </button>
            </div>
            {runError && (
              <p className="form-error" role="alert" data-testid="run-error">
                {runError}
              </p>
            )}
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
                    <th>Model Type</th>
                    <th>Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {outputs === null ? (
                    <TableMessageRow columns={6}>Loading…</TableMessageRow>
                  ) : outputs.length === 0 ? (
                    <TableMessageRow columns={6}>{NO_OUTPUTS}</TableMessageRow>
                  ) : (
                    outputs.map((output) => (
                      <tr key={output.id}>
                        <td>{output.id}</td>
                        <td>
                          <StatusBadge status={output.status as BadgeStatus} />
                        </td>
                        <td>{formatTimestamp(output.created_at)}</td>
                        <td>{isOngoing(output.status) ? 'N/A' : formatTimestamp(output.completed_at)}</td>
                        <td>{output.trained_model_type ?? '—'}</td>
                        <td>
                          <Link
                            className="button secondary"
                            to={`/applications/${app.id}/outputs/${output.id}`}
                          >
                            View Details
                          </Link>
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
