import { useNavigate } from 'react-router';
import { useAccountModals } from '../../session/account-modals';

/** /approved-account: the account is ready; logging in happens at /. */
export function ApprovedAccountPage() {
  const navigate = useNavigate();
  const { open } = useAccountModals();
  return (
    <section className="page status-page">
      <div className="card status-card">
        <p className="status-icon ok" aria-hidden="true">
          ✓
        </p>
        <h1>Account Approved</h1>
        <p>An admin has approved your account. You can log in now.</p>
        <div className="status-actions">
          <button
            className="button primary"
            onClick={() => {
              navigate('/');
              open('login');
            }}
          >
            Log in
          </button>
        </div>
      </div>
    </section>
  );
}
