import { useMemo, useRef, useState } from 'react';

import {
  createDefaultAppData,
  createExampleAppData,
  mapJobRequest,
  validateJobBody,
  visibleColumns,
  type AppData,
  type EngineContext,
  type Problem,
  type TabId,
} from '../../../engine';
import { PipelineFlow, PipelineValidityNotice, SchemaForm, useEngineForm } from '../../../renderers';

/** Ids the job body carries; illustrative (1447 is the specification's fallback application id). */
const ILLUSTRATIVE_IDS = { applicationId: 1447, userId: 1 } as const;
const SAVED = 'Saved on this page. Values of hidden fields were left out.';
/** The two configuration tabs, each shown as a card with its own Save. */
const TAB_CARDS: Array<{ tab: TabId; title: string; testId: string }> = [
  { tab: 'dataset', title: 'Dataset', testId: 'dataset-card' },
  { tab: 'model', title: 'Model Configurations', testId: 'model-card' },
];

/** One problem: its sample dataset, both forms, the pipeline and the job request, all live. */
export function ProblemWorkbench({ problem }: { problem: Problem }) {
  const example = useMemo(() => createExampleAppData(problem), [problem]);
  const [rowCount, setRowCount] = useState<number | undefined>(example.context.rowCount);
  const columns = example.context.columns;
  const context = useMemo<EngineContext>(
    () => ({
      ...(rowCount !== undefined ? { rowCount } : {}),
      ...(columns ? { columns } : {}),
      ...ILLUSTRATIVE_IDS,
    }),
    [rowCount, columns],
  );
  const form = useEngineForm(problem, example.appData, context);
  const [saved, setSaved] = useState<TabId | undefined>();
  const cards = useRef<Partial<Record<TabId, HTMLDivElement | null>>>({});

  const request = useMemo(
    () => mapJobRequest(problem, form.appData, context),
    [problem, form.appData, context],
  );
  const bodyCheck = useMemo(() => validateJobBody(problem, request.body), [problem, request.body]);
  const shown = visibleColumns(columns, problem.platform);
  const hidden = (columns ?? []).filter((c) => !shown.includes(c));
  const query = new URLSearchParams(
    Object.entries(request.query).map(([k, v]) => [k, String(v)] as [string, string]),
  ).toString();

  const jumpTo = (tab: TabId) => {
    const target = cards.current[tab];
    target?.scrollIntoView({ behavior: 'smooth', block: 'start' });
    // The first invalid field, else the first field (one selector list would take whichever comes first).
    const field =
      target?.querySelector<HTMLElement>('[aria-invalid="true"]') ??
      target?.querySelector<HTMLElement>('input, select');
    field?.focus({ preventScroll: true });
  };

  const change = (next: AppData) => {
    setSaved(undefined);
    form.onChange(next);
  };
  const save = (pruned: AppData, tab: TabId) => {
    form.setAppData(pruned);
    setSaved(tab);
  };

  return (
    <div className="schema-workbench">
      <div className="schema-intro card">
        <div>
          <h2>
            {problem.name}
            {!problem.listed && <span className="schema-badge">Unlisted</span>}
          </h2>
          <p className="muted">{problem.description}</p>
          <p className="schema-source">
            Defined in <code>schemas/{problem.source}</code> · workspace <code>/{problem.workspace}</code> ·
            category {problem.categoryInfo.name}
          </p>
        </div>
        <div className="schema-start">
          <span className="muted">Start from</span>
          <button type="button" className="button secondary" onClick={() => change(example.appData)}>
            Example values
          </button>
          <button
            type="button"
            className="button secondary"
            onClick={() => change(createDefaultAppData(problem, context))}
          >
            Defaults only
          </button>
        </div>
      </div>

      <div className="schema-sample card" aria-label="Illustrative sample dataset">
        <h2>
          Sample dataset <span className="schema-badge schema-badge--info">Illustrative</span>
        </h2>
        <p className="muted">
          Not real data: a row count and column names from the problem&apos;s example, so that the splitter
          limits and the column lists work here.
        </p>
        <div className="schema-sample-row">
          <label className="schema-rows">
            Rows
            <input
              type="number"
              min={1}
              value={rowCount ?? ''}
              onChange={(e) =>
                setRowCount(e.target.value === '' ? undefined : Math.max(1, Number(e.target.value)))
              }
            />
          </label>
          {columns && columns.length > 0 ? (
            <div className="schema-columns">
              <span className="muted">Columns</span>
              {shown.map((c) => (
                <span key={c} className="schema-column">
                  {c}
                </span>
              ))}
              {hidden.map((c) => (
                <span key={c} className="schema-column is-hidden" title="Hidden from feature selection">
                  {c}
                </span>
              ))}
            </div>
          ) : (
            <span className="muted">No columns (this problem&apos;s dataset is not a table).</span>
          )}
        </div>
      </div>

      <div className="schema-columns-2">
        <div className="schema-forms">
          {TAB_CARDS.map(({ tab, title, testId }) => (
            <div
              key={tab}
              className="schema-card"
              ref={(el) => {
                cards.current[tab] = el;
              }}
              data-testid={testId}
            >
              <h2 className="schema-card-title">{title}</h2>
              <SchemaForm
                problem={problem}
                tab={tab}
                appData={form.appData}
                context={context}
                state={form.state}
                onChange={change}
                idPrefix={`gallery-${tab}`}
                submitLabel="Save Changes"
                onSubmit={(pruned) => save(pruned, tab)}
              />
              {saved === tab && (
                <p className="form-success" role="status">
                  {SAVED}
                </p>
              )}
            </div>
          ))}
        </div>

        <aside className="schema-preview">
          <div className="card" data-testid="job-card">
            <h2>Job request</h2>
            <p className="schema-request">
              <code>
                {request.method} {request.path}
                {query ? `?${query}` : ''}
              </code>
            </p>
            <p className={bodyCheck.valid ? 'form-success' : 'form-error'} role="status">
              {bodyCheck.valid
                ? 'The body matches the job-body schema.'
                : 'The body does not match the job-body schema yet.'}
            </p>
            {!bodyCheck.valid && (
              <ul className="schema-body-errors">
                {bodyCheck.errors.slice(0, 6).map((e, i) => (
                  <li key={i}>
                    <code>{e.path || '/'}</code> {e.message}
                  </li>
                ))}
              </ul>
            )}
            <pre className="schema-json" data-testid="job-body">
              {JSON.stringify(request.body, null, 2)}
            </pre>
            <p className="muted schema-note">
              Mapped by <code>mapJobRequest</code> from the current values (application id{' '}
              {ILLUSTRATIVE_IDS.applicationId}, user id {ILLUSTRATIVE_IDS.userId}).
            </p>
          </div>
        </aside>
      </div>

      <div className="card schema-pipeline" data-testid="pipeline-card">
        <h2>Pipeline</h2>
        <PipelineValidityNotice status={form.state.pipeline} onFillMissing={(t) => jumpTo(t.tab)} />
        <PipelineFlow problem={problem} appData={form.appData} context={context} validation={form.state} />
      </div>
    </div>
  );
}
