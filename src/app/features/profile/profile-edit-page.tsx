import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../../api/client';
import { useToast } from '../../components/toasts';
import { UserAvatar } from '../../components/user-avatar';
import { useAuth } from '../../session/auth-context';
import { hasErrors, refusalErrorsOf, type FieldErrors } from '../../session/field-errors';
import { checkAccountForm } from '../../session/form-rules';
import { getIbmqToken } from './api/ibmq-token';
import { updateProfile } from './api/update-profile';
import { uploadImage } from './api/upload-image';
import { AVATAR_ACCEPT, avatarProblem } from './avatar-rule';
import { formValuesOf, profileUpdateOf, type ProfileFormValues } from './profile-form-values';
import { ProfileSidebar } from './profile-sidebar';
import { storedTimeZone, storeTimeZone } from '../../format/timezones';
import { TimezonePicker } from './timezone-picker';
import { maskToken, TokenField } from './token-field';

export const PROFILE_UPDATED = 'Profile updated successfully!';
export const PROFILE_FAILED = 'Failed to update profile';
export const UPLOAD_FAILED = 'Failed to upload image';
export const USER_ID_MISSING = 'User ID is missing';

/** /profile/edit: My Profile in view mode; Edit Profile opens the form, Save or Cancel returns. */
export function ProfileEditPage() {
  const { user, refresh } = useAuth();
  const notify = useToast();
  const [editing, setEditing] = useState(false);
  const [token, setToken] = useState('');
  const [values, setValues] = useState<ProfileFormValues | null>(null);
  const [tokenEditing, setTokenEditing] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  // After a Save has shown field errors, every change checks again, so a corrected field clears.
  const [checked, setChecked] = useState(false);

  // The stored token is fetched for the owner's own edit form only, when it opens.
  useEffect(() => {
    if (!editing || !user?.has_custom_ibmq_token) return;
    let live = true;
    getIbmqToken(user.id)
      .then((found) => {
        if (!live) return;
        setToken(found ?? '');
        setValues((current) => current && { ...current, custom_ibmq_token: found ?? '' });
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [editing, user]);

  useEffect(() => () => void (preview && URL.revokeObjectURL(preview)), [preview]);

  if (!user) return null;

  const startEditing = () => {
    setValues(formValuesOf(user, token, storedTimeZone()));
    setErrors({});
    setChecked(false);
    setFile(null);
    setPreview(null);
    setProgress(null);
    setTokenEditing(false);
    setEditing(true);
  };
  const cancel = () => {
    setEditing(false);
    setValues(null);
    setErrors({});
    setFile(null);
    setPreview(null);
  };
  const set = (key: keyof ProfileFormValues) => (value: string) => {
    if (!values) return;
    const next = { ...values, [key]: value };
    // A functional update: the stored token may arrive (and be merged in) between this render and
    // the keystroke; writing `next` whole would put the token back to empty, and a Save after
    // 'Edit Token' would then clear the user's stored token.
    setValues((current) => current && { ...current, [key]: value });
    if (checked) {
      const found = checkAccountForm(
        'profile',
        profileUpdateOf(next, { tokenEdited: tokenEditing, imageUrl: undefined }),
      );
      setErrors((current) => ({ image: current.image, ...found }));
    }
  };

  function pickFile(picked: File | null) {
    setErrors((current) => ({ ...current, image: undefined }));
    if (!picked) return;
    const problem = avatarProblem(picked);
    if (problem) {
      setErrors((current) => ({ ...current, image: problem }));
      return;
    }
    setFile(picked);
    setPreview(URL.createObjectURL(picked));
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!values) return;
    if (!user?.id) {
      notify('error', USER_ID_MISSING);
      return;
    }
    const update = profileUpdateOf(values, { tokenEdited: tokenEditing, imageUrl: undefined });
    const found = checkAccountForm('profile', update);
    setErrors(found);
    setChecked(true);
    if (hasErrors(found)) return;
    setBusy(true);
    try {
      if (file) {
        setProgress(0);
        try {
          update.image_url = await uploadImage(file, setProgress);
        } catch (error) {
          setErrors({ image: error instanceof ApiError ? error.message : UPLOAD_FAILED });
          // The refused file is dropped: its preview would otherwise stand as a broken image.
          setFile(null);
          setPreview(null);
          notify('error', UPLOAD_FAILED);
          return;
        }
      }
      const reply = await updateProfile(user.id, update);
      if (!reply.success) {
        notify('error', reply.message ?? PROFILE_FAILED);
        return;
      }
      notify('success', reply.message ?? PROFILE_UPDATED);
      storeTimeZone(values.provided_timezone);
      if (tokenEditing) setToken(values.custom_ibmq_token.trim());
      await refresh();
      setEditing(false);
      setValues(null);
    } catch (error) {
      setErrors(refusalErrorsOf(error));
      notify('error', PROFILE_FAILED);
    } finally {
      setBusy(false);
      setProgress(null);
    }
  }

  return (
    <section className="page profile-layout">
      <ProfileSidebar user={user} />
      <div className="profile-main">
        <header className="page-header">
          <h1>My Profile</h1>
        </header>
        {editing && values ? (
          <form className="card profile-form" onSubmit={save} noValidate aria-label="Edit profile">
            <div className="avatar-field">
              <UserAvatar name={values.name || user.name} imageUrl={preview ?? user.image_url} size={96} />
              <div>
                <label className="file-label">
                  Avatar image
                  <input
                    type="file"
                    name="image"
                    accept={AVATAR_ACCEPT}
                    onChange={(e) => pickFile(e.target.files?.[0] ?? null)}
                  />
                </label>
                <p className="muted hint">PNG, JPG, GIF or SVG, at most 2 MB; 400×400 px recommended.</p>
                {progress !== null && (
                  <div
                    className="progress"
                    role="progressbar"
                    aria-label="Upload progress"
                    aria-valuenow={Math.round(progress * 100)}
                  >
                    <div style={{ width: `${Math.round(progress * 100)}%` }} />
                  </div>
                )}
                {errors.image && <p className="field-error">{errors.image}</p>}
              </div>
            </div>
            <div className="form-grid">
              <Field label="Username" error={errors.name}>
                <input name="name" value={values.name} onChange={(e) => set('name')(e.target.value)} />
              </Field>
              <Field label="Date of birth" error={errors.dob}>
                <input
                  name="dob"
                  type="date"
                  value={values.dob}
                  onChange={(e) => set('dob')(e.target.value)}
                />
              </Field>
              <Field label="Current password" error={errors.old_password}>
                <input
                  name="old_password"
                  type="password"
                  autoComplete="current-password"
                  value={values.old_password}
                  onChange={(e) => set('old_password')(e.target.value)}
                />
              </Field>
              <Field label="New password" error={errors.new_password}>
                <input
                  name="new_password"
                  type="password"
                  autoComplete="new-password"
                  value={values.new_password}
                  onChange={(e) => set('new_password')(e.target.value)}
                />
              </Field>
              <Field label="Confirm new password" error={errors.confirm_new_password}>
                <input
                  name="confirm_new_password"
                  type="password"
                  autoComplete="new-password"
                  value={values.confirm_new_password}
                  onChange={(e) => set('confirm_new_password')(e.target.value)}
                />
              </Field>
              <div className="field">
                <TimezonePicker
                  value={values.provided_timezone}
                  onChange={set('provided_timezone')}
                  placeholder="Search timezones..."
                  emptyText="No timezone found"
                />
                {errors.provided_timezone && <p className="field-error">{errors.provided_timezone}</p>}
              </div>
            </div>
            <TokenField
              value={values.custom_ibmq_token}
              onChange={set('custom_ibmq_token')}
              stored={Boolean(user.has_custom_ibmq_token)}
              editing={tokenEditing}
              onEditingChange={(open) => {
                setTokenEditing(open);
                if (!open) set('custom_ibmq_token')(token);
              }}
              error={errors.custom_ibmq_token}
            />
            {errors.form && (
              <p className="form-error" role="alert">
                {errors.form}
              </p>
            )}
            <div className="form-actions">
              <button type="button" className="button secondary" onClick={cancel} disabled={busy}>
                Cancel
              </button>
              <button type="submit" className="button primary" disabled={busy}>
                {busy ? 'Saving…' : 'Save'}
              </button>
            </div>
          </form>
        ) : (
          <div className="card profile-view">
            <dl>
              <dt>Username</dt>
              <dd>{user.name}</dd>
              <dt>E-mail</dt>
              <dd>{user.email}</dd>
              <dt>Date of birth</dt>
              <dd>{user.dob ? user.dob.slice(0, 10) : <span className="muted">Not set</span>}</dd>
              <dt>Timezone</dt>
              <dd>
                {user.provided_timezone || <span className="muted">{storedTimeZone()} (this browser)</span>}
              </dd>
              <dt>Quantum provider token</dt>
              <dd>
                {user.has_custom_ibmq_token ? (
                  <span className="token-mask">{maskToken(token || '•'.repeat(40))}</span>
                ) : (
                  <span className="muted">Not set</span>
                )}
              </dd>
            </dl>
            <div className="form-actions">
              <button className="button primary" onClick={startEditing}>
                Edit Profile
              </button>
            </div>
          </div>
        )}
      </div>
    </section>
  );
}

function Field({ label, error, children }: { label: string; error?: string; children: ReactNode }) {
  return (
    <div className="field">
      <label>
        {label}
        {children}
      </label>
      {error && <p className="field-error">{error}</p>}
    </div>
  );
}
