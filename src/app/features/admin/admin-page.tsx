import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { formatTimestamp } from '../../format/dates';
import { useAuth } from '../../session/auth-context';
import { listUsers, type AccountStatus, type AdminUser } from './api/list-users';
import { getOutbox, type Outbox } from './api/outbox';
import { setRoles } from './api/set-roles';
import { runUserAction, type UserAction } from './api/user-action';
import { MailBody } from './mail-body';
import './admin-console.css';

// Every group the server knows needs a label: a status added there fails the typecheck here.
const STATUS_LABELS: Record<AccountStatus, string> = {
  'pending-verification': 'Pending verification',
  'pending-approval': 'Pending approval',
  approved: 'Approved',
  rejected: 'Rejected',
  disabled: 'Disabled',
};
const STATUSES = Object.keys(STATUS_LABELS) as AccountStatus[];

const ACTION_LABELS: Record<UserAction, string> = {
  'verify-email': 'Verify e-mail',
  'send-verification': 'Resend verification',
  approve: 'Approve',
  reject: 'Reject',
  disable: 'Disable',
  enable: 'Enable',
};

/** What an admin can do to an account in each group. */
const ACTIONS_BY_STATUS: Record<AccountStatus, UserAction[]> = {
  'pending-verification': ['verify-email', 'send-verification', 'approve', 'reject', 'disable'],
  'pending-approval': ['approve', 'reject', 'disable'],
  approved: ['reject', 'disable'],
  rejected: ['approve', 'disable'],
  disabled: ['enable'],
};

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Admin console: accounts by status with their decisions and roles, the mail outbox, the admin tools. */
export function AdminPage() {
  const { user, loading } = useAuth();
  const isAdmin = Boolean(user?.roles.includes('admin'));
  const [status, setStatus] = useState<AccountStatus | null>('pending-approval');
  const [users, setUsers] = useState<AdminUser[] | null>(null);
  const [knownRoles, setKnownRoles] = useState<string[]>([]);
  const [outbox, setOutbox] = useState<Outbox | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState<number | null>(null);

  // Bumped after each change so the lists load again.
  const [version, setVersion] = useState(0);

  useEffect(() => {
    if (!isAdmin) return;
    let cancelled = false;
    Promise.all([listUsers(status), getOutbox()])
      .then(([page, mail]) => {
        if (cancelled) return;
        setUsers(page.users);
        setKnownRoles(page.roles);
        setOutbox(mail);
      })
      .catch((e: unknown) => !cancelled && setError(errorText(e)));
    return () => {
      cancelled = true;
    };
  }, [isAdmin, status, version]);

  if (loading) return <p className="muted">Loading...</p>;
  if (!user) return <p className="notice">User not authenticated. Please log in.</p>;
  if (!isAdmin) return <p className="notice">This page is for administrators.</p>;

  async function act(id: number, change: () => Promise<{ message: string }>) {
    setBusy(id);
    setError('');
    setNotice('');
    try {
      setNotice((await change()).message);
      setVersion((v) => v + 1);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="page admin-console">
      <header className="page-header">
        <h1>Admin console</h1>
        <p className="muted">
          Registrations waiting for a decision, every account by status, and the mail the server kept.{' '}
          <Link to="/admin/diagnostics">Diagnostics</Link> · <Link to="/admin/analytics">Analytics</Link> ·{' '}
          <Link to="/schemas">Schemas</Link>
        </p>
      </header>

      <nav className="admin-tabs" aria-label="Account status">
        {[null, ...STATUSES].map((option) => (
          <button
            key={option ?? 'all'}
            className={`button ${option === status ? 'primary' : 'secondary'}`}
            aria-pressed={option === status}
            onClick={() => {
              setUsers(null);
              setStatus(option);
            }}
          >
            {option ? STATUS_LABELS[option] : 'All'}
          </button>
        ))}
      </nav>

      {notice && (
        <p className="admin-notice" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}

      <div className="card">
        <h2>Accounts{status ? `: ${STATUS_LABELS[status]}` : ''}</h2>
        {users === null ? (
          <p className="muted">Loading...</p>
        ) : users.length === 0 ? (
          <p className="muted">No accounts here.</p>
        ) : (
          <table className="admin-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>E-mail</th>
                <th>Status</th>
                <th>Roles</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              {users.map((account) => (
                <AccountRow
                  // A new key when the saved roles change, so the row's unsaved choice starts over.
                  key={`${account.id}:${account.roles.join()}`}
                  account={account}
                  knownRoles={knownRoles}
                  busy={busy === account.id}
                  onAction={(action) => {
                    // Rejecting and disabling end the user's sessions: asked once more.
                    const ending = action === 'reject' || action === 'disable';
                    if (ending && !window.confirm(`${ACTION_LABELS[action]} ${account.email}?`)) return;
                    void act(account.id, () => runUserAction(account.id, action));
                  }}
                  onRoles={(roles) => act(account.id, () => setRoles(account.id, roles))}
                />
              ))}
            </tbody>
          </table>
        )}
      </div>

      <div className="card admin-outbox">
        <h2>Outbox</h2>
        {outbox === null ? (
          <p className="muted">Loading...</p>
        ) : outbox.mode === 'smtp' ? (
          <p className="muted">Mail is sent through the SMTP server (SMTP_URL); none is kept here.</p>
        ) : outbox.messages.length === 0 ? (
          <p className="muted">No mail yet.</p>
        ) : (
          <ul className="admin-mail-list">
            {outbox.messages.map((mail) => (
              <li key={mail.id}>
                <div className="admin-mail-head">
                  <strong>{mail.subject}</strong>
                  <span className="muted">
                    to {mail.recipient}
                    {mail.kind ? ` · ${mail.kind}` : ''} · {formatTimestamp(mail.created_at)}
                  </span>
                </div>
                <MailBody text={mail.body} />
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function AccountRow({
  account,
  knownRoles,
  busy,
  onAction,
  onRoles,
}: {
  account: AdminUser;
  knownRoles: string[];
  busy: boolean;
  onAction: (action: UserAction) => void;
  onRoles: (roles: string[]) => void;
}) {
  const [roles, setRolesDraft] = useState<string[]>(account.roles);
  const changed = [...roles].sort().join() !== [...account.roles].sort().join();
  return (
    <tr data-testid={`account-${account.email}`}>
      <td>{account.name}</td>
      <td>{account.email}</td>
      <td>
        <span className={`admin-status admin-status--${account.status}`}>
          {STATUS_LABELS[account.status]}
        </span>
      </td>
      <td>
        <fieldset className="admin-roles" aria-label={`Roles of ${account.email}`} disabled={busy}>
          {knownRoles.map((role) => (
            <label key={role}>
              <input
                type="checkbox"
                checked={roles.includes(role)}
                onChange={(e) =>
                  setRolesDraft((current) =>
                    e.target.checked ? [...current, role] : current.filter((r) => r !== role),
                  )
                }
              />
              {role}
            </label>
          ))}
          {changed && (
            <button className="button secondary" onClick={() => onRoles(roles)}>
              Save roles
            </button>
          )}
        </fieldset>
      </td>
      <td>
        <div className="admin-actions">
          {ACTIONS_BY_STATUS[account.status].map((action) => (
            <button
              key={action}
              className={`button ${action === 'reject' || action === 'disable' ? 'danger' : 'secondary'}`}
              disabled={busy}
              onClick={() => onAction(action)}
            >
              {ACTION_LABELS[action]}
            </button>
          ))}
        </div>
      </td>
    </tr>
  );
}
