import { useMemo } from 'react';
import { useSearchParams } from 'react-router';

import { SchemaError, type Registry } from '../../../engine';
import { browserRegistry } from '../../../renderers/browser-registry';
import { useAuth } from '../../session/auth-context';
import { ProblemWorkbench } from './problem-workbench';

/** The gallery is for admins, and for everyone while developing (vite dev server). */
export function canSeeSchemaGallery(roles: readonly string[] | undefined): boolean {
  return import.meta.env.DEV || !!roles?.includes('admin');
}

function loadRegistry(): { registry?: Registry; error?: SchemaError | Error } {
  try {
    return { registry: browserRegistry() };
  } catch (err) {
    return { error: err as Error };
  }
}

/**
 * /schemas: every problem file (unlisted ones included) rendered by the engine and the renderers,
 * so a domain expert sees at once what an edit of a schema file does to the forms, the pipeline
 * and the job body.
 */
export function SchemaGalleryPage() {
  const { user, loading } = useAuth();
  if (!canSeeSchemaGallery(user?.roles)) {
    return loading ? (
      <p className="muted">Loading…</p>
    ) : (
      <section className="page">
        <h1>Schemas</h1>
        <p className="notice">The schema gallery is available to administrators.</p>
      </section>
    );
  }
  return <SchemaGallery />;
}

function SchemaGallery() {
  const { registry, error } = useMemo(() => loadRegistry(), []);
  const [params, setParams] = useSearchParams();

  if (!registry) {
    const issues = error instanceof SchemaError ? error.issues : [];
    return (
      <section className="page schema-gallery">
        <h1>Schemas</h1>
        <div className="notice" role="alert">
          <p>The schema files could not be loaded: {error?.message}</p>
          {issues.length > 0 && (
            <ul>
              {issues.map((issue, i) => (
                <li key={i}>
                  <code>{issue.file}</code> <code>{issue.pointer || '/'}</code>: {issue.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>
    );
  }

  const problems = registry.listProblems({ includeUnlisted: true });
  const selectedId = params.get('problem') ?? problems[0]?.id;
  const problem = selectedId ? registry.findProblem(selectedId) : undefined;

  return (
    <section className="page schema-gallery">
      <header className="page-header">
        <h1>Schemas</h1>
        <p className="muted">
          Every problem as its schema file defines it: the forms, the pipeline and the job body, live. Edit a
          value to see what the engine makes of it.
        </p>
      </header>
      <nav className="schema-picker" aria-label="Problems">
        {problems.map((p) => (
          <button
            key={p.id}
            type="button"
            className={`schema-pick${p.id === problem?.id ? ' is-selected' : ''}`}
            aria-pressed={p.id === problem?.id}
            onClick={() => setParams({ problem: p.id })}
          >
            <span className="schema-pick-name">{p.name}</span>
            <span className="schema-pick-meta">
              {p.categoryName}
              {!p.listed && <span className="schema-badge">Unlisted</span>}
            </span>
          </button>
        ))}
      </nav>
      {problem ? (
        <ProblemWorkbench key={problem.id} problem={problem} />
      ) : (
        <p className="notice">No problem named “{selectedId}”.</p>
      )}
    </section>
  );
}
