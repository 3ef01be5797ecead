import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, setAccessToken } from '../api/client';
import { login } from './api/login';
import { hasErrors, type FieldErrors } from './field-errors';
import { checkAccountForm } from './form-rules';
import { AccountDialog } from './account-dialog';
import { SocialButtons } from './social-buttons';
import { rememberEmail } from './stored-email';

/** Spec section 9: the success message shows this long before /profile. */
export const LOGIN_REDIRECT_MS = 3000;
export const LOGIN_SUCCESS = 'Login successful! Redirecting...';
export const LOGIN_FAILED = 'Login failed. Please try again.';

// The pending pages a refused sign-in is sent to; a missing role is a message in the dialog instead.
const PENDING_PAGES = new Set(['/pending-verify', '/waiting-admin-approval']);

interface Props {
  onClose: () => void;
  onSignedIn: () => void;
  onRegister: () => void;
}

/** The Login modal: e-mail and password with the spec's messages; success shows a message, then /profile. */
export function LoginModal({ onClose, onSignedIn, onRegister }: Props) {
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [success, setSuccess] = useState('');
  const [busy, setBusy] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = checkAccountForm('login', { email: email.trim(), password });
    setErrors(found);
    if (hasErrors(found)) return;
    setBusy(true);
    try {
      await login(email.trim(), password);
      setSuccess(LOGIN_SUCCESS);
      onSignedIn();
      timer.current = setTimeout(() => {
        onClose();
        navigate('/profile');
      }, LOGIN_REDIRECT_MS);
    } catch (error) {
      setAccessToken(null);
      const redirect = refusalRedirect(error);
      if (redirect && PENDING_PAGES.has(redirect)) {
        rememberEmail(email.trim());
        onClose();
        navigate(redirect);
        return;
      }
      setErrors({ form: error instanceof ApiError ? error.message : LOGIN_FAILED });
    } finally {
      setBusy(false);
    }
  }

  return (
    <AccountDialog id="login" title="Login" onClose={onClose} onSubmit={submit}>
      <label>
        E-mail
        <input
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </label>
      {errors.email && <p className="field-error">{errors.email}</p>}
      <label>
        Password
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      {errors.password && <p className="field-error">{errors.password}</p>}
      {errors.form && (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      )}
      {success && (
        <p className="form-success" role="status">
          {success}
        </p>
      )}
      <div className="modal-actions">
        <button type="button" className="button secondary" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={busy || Boolean(success)}>
          {busy ? 'Signing in…' : 'Login'}
        </button>
      </div>
      <SocialButtons />
      <p className="modal-switch muted">
        No account yet?{' '}
        <button type="button" className="link-button" onClick={onRegister}>
          Register
        </button>
      </p>
    </AccountDialog>
  );
}

/** The page a refused sign-in names (403 with data.redirect), if any. */
function refusalRedirect(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || !error.body || typeof error.body !== 'object') return undefined;
  const { data } = error.body as { data?: { redirect?: unknown } };
  return typeof data?.redirect === 'string' ? data.redirect : undefined;
}
