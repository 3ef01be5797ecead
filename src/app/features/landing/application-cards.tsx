import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { storedTimeZone } from '../../format/timezones';
import { createBlankApplication, getCategories, type Category } from '../../api/applications';
import { workspacePath } from '../../routing/workspace-path';
import { useAccountModals } from '../../session/account-modals';
import { useAuth } from '../../session/auth-context';
import { Carousel } from './carousel';

/** Placeholder cards shown (disabled, 'Coming Soon') while the categories load. */
const PLACEHOLDER_CARDS = 3;

type Problem = Category['app_problems'][number];

/**
 * The name a card's Start Now gives the new application: the problem and today's date in the user's
 * timezone ('Stock Price Prediction 2026-11-23'); renamed later in the workspace. No slashes, so the
 * workspace path stays one segment per part.
 */
export function defaultAppName(problemName: string, now = new Date(), timeZone = storedTimeZone()): string {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).formatToParts(now);
  } catch {
    parts = new Intl.DateTimeFormat('en-US', {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).formatToParts(now);
  }
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${problemName} ${part('year')}-${part('month')}-${part('day')}`;
}

/**
 * The landing page's application cards (spec section 2): tabs per category (financial,
 * bioinformatics) over a carousel of the registry's listed problems, each with its description, its
 * five use cases and Start Now. Until the categories are loaded (the spec's "category id 0") the cards
 * are placeholders whose button reads 'Coming Soon' and is disabled.
 */
export function ApplicationCards() {
  const [categories, setCategories] = useState<Category[] | null>(null);
  const [failed, setFailed] = useState('');
  const [selected, setSelected] = useState(0);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);

  const load = useCallback(
    () =>
      getCategories()
        .then((found) => setCategories(found.filter((category) => category.app_problems.length > 0)))
        .catch((error: unknown) => setFailed(error instanceof ApiError ? error.message : String(error))),
    [],
  );
  useEffect(() => {
    void load();
  }, [load]);
  const retry = () => {
    setFailed('');
    void load();
  };
  // The API client words failures as spec section 8 does ('Get application categories failed: ...',
  // 'Create application failed: ...'), so the texts below are its messages.

  if (failed) {
    return (
      <div className="notice cards-failed" role="alert">
        {failed}{' '}
        <button type="button" className="button secondary" onClick={retry}>
          Try again
        </button>
      </div>
    );
  }

  if (!categories) {
    return (
      <div aria-busy="true">
        <Carousel label="Applications (loading)">
          {Array.from({ length: PLACEHOLDER_CARDS }, (_, index) => (
            <li key={index} className="app-card is-placeholder">
              <span className="skeleton title" />
              <span className="skeleton" />
              <span className="skeleton short" />
              <button type="button" className="button secondary app-card-start" disabled>
                Coming Soon
              </button>
            </li>
          ))}
        </Carousel>
      </div>
    );
  }

  // Arrow keys move between the tabs (the WAI-ARIA tabs pattern); Tab goes on into the panel.
  const onTabKey = (event: KeyboardEvent, index: number) => {
    const delta = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!delta) return;
    event.preventDefault();
    const next = (index + delta + categories.length) % categories.length;
    setSelected(next);
    tabs.current[next]?.focus();
  };
  const category = categories[Math.min(selected, categories.length - 1)];

  return (
    <div className="app-cards">
      <div className="tabs" role="tablist" aria-label="Application categories">
        {categories.map((each, index) => (
          <button
            key={each.id}
            ref={(element) => {
              tabs.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`app-tab-${each.id}`}
            aria-controls={`app-panel-${each.id}`}
            aria-selected={index === selected}
            tabIndex={index === selected ? 0 : -1}
            className={`tab${index === selected ? ' active' : ''}`}
            onClick={() => setSelected(index)}
            onKeyDown={(event) => onTabKey(event, index)}
          >
            {each.label}
          </button>
        ))}
      </div>
      {category && (
        <div role="tabpanel" id={`app-panel-${category.id}`} aria-labelledby={`app-tab-${category.id}`}>
          <Carousel key={category.id} label={`${category.label} applications`}>
            {category.app_problems.map((problem) => (
              <ApplicationCard key={problem.id} problem={problem} />
            ))}
          </Carousel>
        </div>
      )}
    </div>
  );
}

function ApplicationCard({ problem }: { problem: Problem }) {
  const { user, loading } = useAuth();
  const { open } = useAccountModals();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState('');

  async function start() {
    // Spec section 4: starting from a card while logged out opens the login modal.
    if (!user) {
      open('login');
      return;
    }
    setCreating(true);
    setError('');
    try {
      const created = await createBlankApplication({
        app_name: defaultAppName(problem.name),
        user_id: user.id,
        app_problem_id: problem.id,
      });
      navigate(workspacePath(problem, created));
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
      setCreating(false);
    }
  }

  const headingId = `app-card-${problem.id}`;
  return (
    <li className="app-card" aria-labelledby={headingId}>
      <h3 id={headingId}>{problem.name}</h3>
      <p className="app-card-description">{problem.description}</p>
      <h4>Use cases</h4>
      <ul className="use-cases">
        {problem.useCases.map((useCase) => (
          <li key={useCase}>{useCase}</li>
        ))}
      </ul>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button
        type="button"
        className="button primary app-card-start"
        disabled={creating || loading}
        aria-describedby={headingId}
        onClick={() => void start()}
      >
        {creating ? 'Creating ...' : 'Start Now'}
      </button>
    </li>
  );
}
