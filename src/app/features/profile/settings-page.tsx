import { useState, type FormEvent } from 'react';
import { useToast } from '../../components/toasts';
import { useAuth } from '../../session/auth-context';
import { hasErrors, refusalErrorsOf, type FieldErrors } from '../../session/field-errors';
import { checkAccountForm } from '../../session/form-rules';
import { updateProfile, type ProfileUpdate } from './api/update-profile';
import { PROFILE_FAILED, PROFILE_UPDATED } from './profile-edit-page';
import { ProfileSidebar } from './profile-sidebar';
import { storedTimeZone, storeTimeZone } from '../../format/timezones';
import { TimezonePicker } from './timezone-picker';

/** /setting and /profile/settings: the time zone and the quantum-provider token; Save changes really saves. */
export function SettingsPage() {
  const { user, refresh } = useAuth();
  const notify = useToast();
  const initialZone = user?.provided_timezone || storedTimeZone();
  const [zone, setZone] = useState(initialZone);
  const [token, setToken] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  if (!user) return null;

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!user) return;
    // An empty token box leaves the stored token alone; 'Clear Token' on the profile page removes it.
    const update: ProfileUpdate = {
      provided_timezone: zone,
      ...(token.trim() && { custom_ibmq_token: token.trim() }),
    };
    const found = checkAccountForm('settings', update);
    setErrors(found);
    if (hasErrors(found)) return;
    setBusy(true);
    try {
      const reply = await updateProfile(user.id, update);
      if (!reply.success) {
        notify('error', reply.message ?? PROFILE_FAILED);
        return;
      }
      storeTimeZone(zone);
      setToken('');
      notify('success', reply.message ?? PROFILE_UPDATED);
      await refresh();
    } catch (error) {
      setErrors(refusalErrorsOf(error));
      notify('error', PROFILE_FAILED);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="page profile-layout">
      <ProfileSidebar user={user} />
      <div className="profile-main">
        <header className="page-header">
          <h1>Settings</h1>
          <p className="muted">Your time zone for dates, and your own quantum-provider token.</p>
        </header>
        <form className="card settings-form" onSubmit={save} noValidate aria-label="Settings">
          <div className="field">
            <TimezonePicker
              label="Time zone"
              value={zone}
              onChange={setZone}
              placeholder="Search timezones..."
              emptyText="No time zone found"
            />
            {errors.provided_timezone && <p className="field-error">{errors.provided_timezone}</p>}
          </div>
          <div className="field">
            <label>
              Quantum provider token
              <input
                name="custom_ibmq_token"
                autoComplete="off"
                spellCheck={false}
                placeholder={
                  user.has_custom_ibmq_token ? 'A token is stored; type to replace it' : 'Optional'
                }
                value={token}
                onChange={(e) => setToken(e.target.value)}
              />
            </label>
            {errors.custom_ibmq_token && <p className="field-error">{errors.custom_ibmq_token}</p>}
          </div>
          {errors.form && (
            <p className="form-error" role="alert">
              {errors.form}
            </p>
          )}
          <div className="form-actions">
            <button
              type="button"
              className="button secondary"
              onClick={() => {
                setZone(initialZone);
                setToken('');
                setErrors({});
              }}
            >
              Cancel
            </button>
            <button type="submit" className="button primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save changes'}
            </button>
          </div>
        </form>
      </div>
    </section>
  );
}
