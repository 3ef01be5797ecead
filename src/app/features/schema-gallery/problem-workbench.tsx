import { useMemo, useRef, useState } from 'react';

import {
  createDefaultAppData,
  createExampleAppData,
  mapJobRequest,
  validateJobBody,
  type AppData,
  type EngineContext,
  type Problem,
  type TabId,
} from '../../../engine';
import { PipelineFlow, PipelineValidityNotice, SchemaForm, useEngineForm } from '../../../renderers';
import { SampleDatasetCard } from './sample-dataset-card';

/** Ids the job body carries here (1447 is the specification's fallback application id). */
const PREVIEW_IDS = { applicationId: 1447, userId: 1 } as const;
const SAVED = 'Saved on this page. Values of hidden fields were left out.';
/** The two configuration tabs, each shown as a card with its own Save. */
const TAB_CARDS: Array<{ tab: TabId; title: string; testId: string }> = [
  { tab: 'dataset', title: 'Dataset', testId: 'dataset-card' },
  { tab: 'model', title: 'Model Configurations', testId: 'model-card' },
];

/** The sample file the example's dataset names (its url or file, else its sample id's file). */
function exampleSampleFile(problem: Problem, appData: AppData): string | undefined {
  const dataset = appData.dataset as { url?: unknown; file?: unknown; sample?: unknown } | undefined;
  const path =
    typeof dataset?.url === 'string' ? dataset.url : typeof dataset?.file === 'string' ? dataset.file : '';
  return path.split('/').pop() || problem.dataset.samples.find((s) => s.id === dataset?.sample)?.file;
}

/** One problem: its sample dataset, both forms, the pipeline and the job request, all live. */
export function ProblemWorkbench({ problem }: { problem: Problem }) {
  const example = useMemo(() => createExampleAppData(problem), [problem]);
  // The example's context states its sample file's real rows and columns (schemas:check holds it to
  // samples/manifest.json); choosing another sample in the card puts that file's in its place.
  const [sample, setSample] = useState<{ file: string; rows: number; columns: string[] } | undefined>();
  const sampleFile = sample?.file ?? exampleSampleFile(problem, example.appData);
  const rowCount = sample ? sample.rows : example.context.rowCount;
  const columns = sample ? sample.columns : example.context.columns;
  const context = useMemo<EngineContext>(
    () => ({
      ...(rowCount !== undefined ? { rowCount } : {}),
      ...(columns ? { columns } : {}),
      ...PREVIEW_IDS,
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

      <SampleDatasetCard problem={problem} file={sampleFile} onChoose={setSample} />

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
              {PREVIEW_IDS.applicationId}, user id {PREVIEW_IDS.userId}).
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
