import { useEffect, useRef, useState } from 'react';
import { StatusBadge } from '../../components/status-badge';
import { useAuth } from '../../session/auth-context';
import {
  followJobEvents,
  getJob,
  startSelfTest,
  stopJob,
  type Job,
  type JobEvent,
  type JobStatus,
} from '../../api/jobs';
import { CountsChart } from './counts-chart';

/** Admin page: start the quantum self-test and watch it travel queue -> worker -> database, live. */
export function SelfTestPage() {
  const { user, loading } = useAuth();
  const [job, setJob] = useState<Job | null>(null);
  const [events, setEvents] = useState<JobEvent[]>([]);
  const [error, setError] = useState('');
  const [shots, setShots] = useState(1024);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => () => abort.current?.abort(), []);

  if (loading) return <p className="muted">Loading...</p>;
  if (!user) return <p className="notice">User not authenticated. Please log in.</p>;
  if (!user.roles.includes('admin')) return <p className="notice">This page is for administrators.</p>;

  async function follow(started: Job) {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    try {
      await followJobEvents(
        started.id,
        -1,
        (event) => {
          setEvents((list) => [...list, event]);
          if (event.type === 'status') {
            // A status event carries one of the statuses the job schema lists (server/jobs/job-states.ts).
            const status = event.payload.status as JobStatus;
            setJob((current) => (current ? { ...current, status } : current));
          }
        },
        controller.signal,
      );
      const final = await getJob(started.id);
      setJob(final.job);
    } catch (e) {
      if (!controller.signal.aborted) setError(e instanceof Error ? e.message : String(e));
    }
  }

  async function start() {
    setError('');
    setEvents([]);
    try {
      const started = await startSelfTest(shots);
      setJob(started);
      void follow(started);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  const progress = [...events].reverse().find((e) => e.type === 'progress');
  const logs = events.filter((e) => e.type === 'log');
  const timeline = events.filter((e) => e.type === 'status');
  const counts = (job?.result?.counts ?? null) as Record<string, number> | null;
  // The server sets finished_at exactly when a job reaches a final status: the page keeps no list of them.
  const running = job !== null && job.finished_at === null;

  return (
    <section className="page">
      <header className="page-header">
        <div>
          <h1>Quantum self-test</h1>
          <p className="muted">
            Runs a 2-qubit Bell circuit on the Qiskit Aer simulator through the job queue and a Python worker.
            A healthy stack measures only <code>00</code> and <code>11</code>, in roughly equal numbers.
          </p>
        </div>
      </header>
      <div className="card toolbar">
        <label>
          Shots
          <input
            type="number"
            min={1}
            max={100000}
            value={shots}
            onChange={(e) => setShots(Number(e.target.value))}
            disabled={running}
          />
        </label>
        <button className="button primary" onClick={start} disabled={running}>
          Run self-test
        </button>
        {running && job && (
          <button
            className="button danger"
            onClick={() => void stopJob(job.id).catch((e: Error) => setError(e.message))}
          >
            Stop
          </button>
        )}
        {job && <StatusBadge status={job.status} />}
        {job?.execution_time != null && <span className="muted">{job.execution_time.toFixed(2)} s</span>}
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {job?.error && (
        <p className="form-error" data-testid="job-error">
          {job.error}
        </p>
      )}
      {job && (
        <div className="grid-2">
          <div className="card">
            <h2>Counts</h2>
            {counts ? (
              <CountsChart counts={counts} />
            ) : (
              <p className="muted">
                {progress
                  ? `${String(progress.payload.stage ?? '')} — ${String(progress.payload.percent)}%`
                  : 'Waiting for the worker…'}
              </p>
            )}
            {progress && running && (
              <div className="progress" aria-label="progress">
                <div style={{ width: `${Number(progress.payload.percent)}%` }} />
              </div>
            )}
          </div>
          <div className="card">
            <h2>Status timeline</h2>
            <ol className="timeline" data-testid="timeline">
              {timeline.map((e) => (
                <li key={e.seq}>
                  <strong>{String(e.payload.status)}</strong>{' '}
                  <span className="muted">{new Date(e.created_at).toLocaleTimeString()}</span>
                  {e.payload.reason ? <div className="muted">{String(e.payload.reason)}</div> : null}
                </li>
              ))}
            </ol>
            <h2>Logs</h2>
            <pre className="logs">
              {logs.map((e) => `[${String(e.payload.level)}] ${String(e.payload.message)}`).join('\n') || '—'}
            </pre>
          </div>
        </div>
      )}
    </section>
  );
}
