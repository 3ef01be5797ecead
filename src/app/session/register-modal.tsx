import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../api/client';
import { register } from './api/register';
import { fieldErrorsOf, hasErrors, type FieldErrors } from './field-errors';
import { checkAccountForm } from './form-rules';
import { AccountDialog } from './account-dialog';
import { SocialButtons } from './social-buttons';
import { rememberEmail } from './stored-email';

export const REGISTER_FAILED = 'Registration failed. Please try again.';

interface Props {
  onClose: () => void;
  onLogin: () => void;
}

/** The Register modal: username, e-mail, password; success keeps the e-mail and goes to /pending-verify. */
export function RegisterModal({ onClose, onLogin }: Props) {
  const navigate = useNavigate();
  const [values, setValues] = useState({ name: '', email: '', password: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const set = (field: keyof typeof values) => (event: { target: { value: string } }) =>
    setValues((current) => ({ ...current, [field]: event.target.value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const entered = { name: values.name.trim(), email: values.email.trim(), password: values.password };
    const found = checkAccountForm('register', entered);
    setErrors(found);
    if (hasErrors(found)) return;
    setBusy(true);
    try {
      await register(entered);
      rememberEmail(entered.email);
      onClose();
      navigate('/pending-verify');
    } catch (error) {
      // The server's detail is what the spec shows; its field messages go under their fields too.
      setErrors({
        ...fieldErrorsOf(error),
        form: error instanceof ApiError ? error.message : REGISTER_FAILED,
      });
    } finally {
      setBusy(false);
    }
  }

  return (
    <AccountDialog id="register" title="Register" onClose={onClose} onSubmit={submit}>
      <label>
        Username
        <input name="name" autoComplete="username" value={values.name} onChange={set('name')} />
      </label>
      {errors.name && <p className="field-error">{errors.name}</p>}
      <label>
        E-mail
        <input name="email" type="email" autoComplete="email" value={values.email} onChange={set('email')} />
      </label>
      {errors.email && <p className="field-error">{errors.email}</p>}
      <label>
        Password
        <input
          name="password"
          type="password"
          autoComplete="new-password"
          value={values.password}
          onChange={set('password')}
        />
      </label>
      {errors.password && <p className="field-error">{errors.password}</p>}
      {errors.form && (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      )}
      <div className="modal-actions">
        <button type="button" className="button secondary" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Registering…' : 'Register'}
        </button>
      </div>
      <SocialButtons />
      <p className="modal-switch muted">
        Already registered?{' '}
        <button type="button" className="link-button" onClick={onLogin}>
          Login
        </button>
      </p>
    </AccountDialog>
  );
}
