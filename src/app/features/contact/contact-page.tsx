import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { useToast } from '../../components/toasts';
import { useAuth } from '../../session/auth-context';
import { fieldErrorsOf, hasErrors, type FieldErrors } from '../../session/field-errors';
import { checkAccountForm } from '../../session/form-rules';
import { sendContact } from './api/send-contact';
import './contact.css';

/** Shown when the reply carries no text of its own (the server's success text is shown otherwise). */
export const CONTACT_FAILED = 'Failed to send your message. Please try again.';

/**
 * /contact (protected): name, e-mail and message to the admins. The rules are the contact form's in
 * schemas/accounts.json, checked here and again by POST /api/contact; name and e-mail start as the
 * signed-in user's.
 */
export function ContactPage() {
  const { user } = useAuth();
  const notify = useToast();
  const navigate = useNavigate();
  const [values, setValues] = useState({ name: user?.name ?? '', email: user?.email ?? '', message: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);

  const change = (field: keyof typeof values) => (event: { target: { value: string } }) => {
    setValues((now) => ({ ...now, [field]: event.target.value }));
    if (errors[field]) setErrors((now) => ({ ...now, [field]: undefined }));
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    const sent = { name: values.name.trim(), email: values.email.trim(), message: values.message };
    const found = checkAccountForm('contact', sent);
    setErrors(found);
    if (hasErrors(found)) return;
    setBusy(true);
    try {
      const reply = await sendContact(sent);
      notify('success', reply.message);
      setValues((now) => ({ ...now, message: '' }));
    } catch (error) {
      setErrors(fieldErrorsOf(error));
      notify('error', error instanceof ApiError ? error.message : CONTACT_FAILED);
    } finally {
      setBusy(false);
    }
  }

  const described = (field: keyof typeof values) =>
    errors[field] ? { 'aria-invalid': true, 'aria-describedby': `contact-${field}-error` } : {};

  // Go back returns to the previous page of this app, or home when /contact was opened directly.
  const goBack = () => {
    const index = (window.history.state as { idx?: number } | null)?.idx ?? 0;
    if (index > 0) navigate(-1);
    else navigate('/');
  };

  return (
    <section className="page contact-page">
      <header className="page-header">
        <h1>Contact us</h1>
        <p className="muted">Questions, ideas or a problem? Your message goes to the administrators.</p>
      </header>
      <form className="card contact-form" noValidate onSubmit={(event) => void submit(event)}>
        <label className="field">
          Name
          <input
            name="name"
            autoComplete="name"
            value={values.name}
            onChange={change('name')}
            {...described('name')}
          />
        </label>
        {errors.name && (
          <p id="contact-name-error" className="field-error">
            {errors.name}
          </p>
        )}
        <label className="field">
          E-mail
          <input
            name="email"
            type="email"
            autoComplete="email"
            value={values.email}
            onChange={change('email')}
            {...described('email')}
          />
        </label>
        {errors.email && (
          <p id="contact-email-error" className="field-error">
            {errors.email}
          </p>
        )}
        <label className="field">
          Message
          <textarea
            name="message"
            rows={7}
            value={values.message}
            onChange={change('message')}
            {...described('message')}
          />
        </label>
        {errors.message && (
          <p id="contact-message-error" className="field-error">
            {errors.message}
          </p>
        )}
        <div className="form-actions">
          <button type="button" className="button secondary" onClick={goBack}>
            Go back
          </button>
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? 'Sending…' : 'Send Message'}
          </button>
        </div>
      </form>
    </section>
  );
}
