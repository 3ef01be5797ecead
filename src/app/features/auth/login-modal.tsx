import { useState, type FormEvent } from 'react';
import { login } from './api/login';

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface Errors {
  email?: string;
  password?: string;
  form?: string;
}

function validate(email: string, password: string): Errors {
  const errors: Errors = {};
  if (!email.trim()) errors.email = 'Email is required.';
  else if (!EMAIL_SHAPE.test(email.trim())) errors.email = 'Invalid email format';
  if (!password) errors.password = 'Password is required.';
  return errors;
}

/** The Login modal: e-mail and password, the spec's messages, then the caller decides where to go. */
export function LoginModal({ onClose, onSuccess }: { onClose: () => void; onSuccess: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [success, setSuccess] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validate(email, password);
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      await login(email.trim(), password);
      setSuccess('Login successful! Redirecting...');
      onSuccess();
    } catch (error) {
      setErrors({ form: error instanceof Error ? error.message : 'Login failed. Please try again.' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="modal-backdrop" role="presentation" onClick={onClose}>
      <form
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby="login-title"
        onClick={(e) => e.stopPropagation()}
        onSubmit={submit}
        noValidate
      >
        <h2 id="login-title">Login</h2>
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
        {success && <p className="form-success">{success}</p>}
        <div className="modal-actions">
          <button type="button" className="button secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Login'}
          </button>
        </div>
      </form>
    </div>
  );
}
