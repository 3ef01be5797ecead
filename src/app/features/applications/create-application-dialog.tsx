import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { formatTimestamp } from '../../format/dates';
import { useAuth } from '../../session/auth-context';
import { fieldErrorsOf, hasErrors, type FieldErrors } from '../../session/field-errors';
import { checkAccountForm } from '../../session/form-rules';
import {
  createBlankApplication,
  getCategories,
  MISSING_NAME_OR_PROBLEM,
  type ApplicationSummary,
  type Category,
} from '../../api/applications';
import { isBrainTumor } from './dashboard-rules';
import { useModalFocus } from '../../components/use-modal-focus';
import { workspacePath } from '../../routing/workspace-path';

export const DIALOG_TITLE = 'Select Application or Create New';

interface Values {
  app_name: string;
  category: string;
  app_problem_id: string;
}

/**
 * Section 2's dialog: on the left the user's applications grouped Brain Tumor / Financial (a card
 * opens its workspace); on the right the Create New form, checked with the engine's
 * 'create-application' form rules, whose success opens the new application's workspace.
 */
export function CreateApplicationDialog({
  applications,
  onClose,
}: {
  applications: ApplicationSummary[];
  onClose: () => void;
}) {
  const { user } = useAuth();
  const navigate = useNavigate();
  const ref = useModalFocus<HTMLDivElement>(onClose);
  const [categories, setCategories] = useState<Category[] | null>(null);
  const [values, setValues] = useState<Values>({ app_name: '', category: '', app_problem_id: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let cancelled = false;
    getCategories()
      .then((found) => !cancelled && setCategories(found))
      .catch((error: Error) => {
        if (cancelled) return;
        setCategories([]);
        setErrors({ form: error.message });
      });
    return () => {
      cancelled = true;
    };
  }, []);

  const problems = useMemo(
    () => categories?.find((category) => category.id === values.category)?.app_problems ?? [],
    [categories, values.category],
  );
  const groups = [
    { title: 'Brain Tumor Applications', apps: applications.filter(isBrainTumor) },
    { title: 'Financial Applications', apps: applications.filter((app) => !isBrainTumor(app)) },
  ];

  const set = (field: keyof Values) => (event: { target: { value: string } }) => {
    const value = event.target.value;
    setValues((current) =>
      field === 'category'
        ? { ...current, category: value, app_problem_id: '' }
        : { ...current, [field]: value },
    );
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const entered = { ...values, app_name: values.app_name.trim() };
    const found = checkAccountForm('create-application', entered);
    // Section 5: the call itself is refused when the name or the problem is missing.
    if (!entered.app_name || !entered.app_problem_id) found.form = MISSING_NAME_OR_PROBLEM;
    setErrors(found);
    if (hasErrors(found)) return;
    const problem = problems.find((candidate) => candidate.id === entered.app_problem_id);
    if (!user || !problem) return;
    setBusy(true);
    try {
      const created = await createBlankApplication({
        app_name: entered.app_name,
        user_id: user.id,
        app_problem_id: problem.id,
      });
      onClose();
      navigate(workspacePath({ name: created.app_problem, workspace: problem.workspace }, created));
    } catch (error) {
      // 'Create application failed: {server detail}', and the server's field messages under their fields.
      setErrors({ ...fieldErrorsOf(error), form: error instanceof Error ? error.message : String(error) });
      setBusy(false);
    }
  }

  return (
    <div className="modal-backdrop" role="presentation" onClick={onClose}>
      <div
        ref={ref}
        className="modal create-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="create-dialog-title"
        onClick={(event) => event.stopPropagation()}
      >
        <div className="create-dialog-head">
          <h2 id="create-dialog-title">{DIALOG_TITLE}</h2>
          <button type="button" className="close-button" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </div>
        <div className="create-dialog-body">
          <section className="your-applications" aria-labelledby="your-apps-title">
            <h3 id="your-apps-title">Your Applications</h3>
            {groups.map(({ title, apps }) => (
              <div key={title} className="app-group">
                <h4>{title}</h4>
                {apps.length === 0 ? (
                  <p className="muted">No applications found</p>
                ) : (
                  <ul>
                    {apps.map((app) => (
                      <li key={app.id}>
                        <button
                          type="button"
                          className="app-pick"
                          onClick={() => {
                            onClose();
                            navigate(workspacePath(app.app_problem, app));
                          }}
                        >
                          <span className="app-pick-name">{app.app_name}</span>
                          <span className="muted">App problem: {app.app_problem.name}</span>
                          <span className="muted">Updated {formatTimestamp(app.updated_at, 'date')}</span>
                        </button>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            ))}
          </section>
          <form className="create-new" aria-labelledby="create-new-title" onSubmit={submit} noValidate>
            <h3 id="create-new-title">Create New</h3>
            <label>
              Application Name
              <input
                name="app_name"
                data-autofocus
                value={values.app_name}
                onChange={set('app_name')}
                aria-invalid={Boolean(errors.app_name)}
              />
            </label>
            {errors.app_name && <p className="field-error">{errors.app_name}</p>}
            <label>
              Application Category
              <select
                name="category"
                value={values.category}
                onChange={set('category')}
                disabled={categories === null}
                aria-invalid={Boolean(errors.category)}
              >
                <option value="">{categories === null ? 'Loading…' : 'Select a category'}</option>
                {categories?.map((category) => (
                  <option key={category.id} value={category.id}>
                    {category.name}
                  </option>
                ))}
              </select>
            </label>
            {errors.category && <p className="field-error">{errors.category}</p>}
            <label>
              Application Problem
              <select
                name="app_problem_id"
                value={values.app_problem_id}
                onChange={set('app_problem_id')}
                disabled={!values.category}
                aria-invalid={Boolean(errors.app_problem_id)}
              >
                <option value="">{values.category ? 'Select a problem' : 'Choose a category first'}</option>
                {problems.map((problem) => (
                  <option key={problem.id} value={problem.id}>
                    {problem.name}
                  </option>
                ))}
              </select>
            </label>
            {errors.app_problem_id && <p className="field-error">{errors.app_problem_id}</p>}
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
                {busy ? 'Creating ...' : 'Create'}
              </button>
            </div>
          </form>
        </div>
      </div>
    </div>
  );
}
