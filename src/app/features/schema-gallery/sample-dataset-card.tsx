import { useEffect, useState } from 'react';

import { visibleColumns, type Problem } from '../../../engine';
import { getSamples, type SampleInfo } from '../../api/get-samples';
import { useAuth } from '../../session/auth-context';
import { downloadSample } from './download-sample';
import './sample-dataset-card.css';

type Load = { state: 'loading' } | { state: 'ready'; samples: SampleInfo[] } | { state: 'failed' };

/**
 * The problem's shipped sample datasets (GET /api/samples): the one the forms use, its real row
 * count and columns, whether it is real data (and from where) or synthetic, and a CSV download.
 * `file` is the sample the forms use; choosing another hands its row count and columns up.
 */
export function SampleDatasetCard({
  problem,
  file,
  onChoose,
}: {
  problem: Problem;
  file: string | undefined;
  onChoose: (sample: SampleInfo) => void;
}) {
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const { user } = useAuth();
  const [downloadError, setDownloadError] = useState<string | undefined>();

  useEffect(() => {
    let cancelled = false;
    getSamples().then(
      (samples) => !cancelled && setLoad({ state: 'ready', samples }),
      () => !cancelled && setLoad({ state: 'failed' }),
    );
    return () => {
      cancelled = true;
    };
  }, []);

  const shipped = load.state === 'ready' ? load.samples : [];
  const offered = problem.dataset.samples.map((def) => ({
    def,
    info: shipped.find((s) => s.file === def.file),
  }));
  const current = shipped.find((s) => s.file === file);
  const currentDef = problem.dataset.samples.find((s) => s.file === file);
  const shown = visibleColumns(current?.columns, problem.platform);
  const hidden = (current?.columns ?? []).filter((c) => !shown.includes(c));

  const download = async (sample: SampleInfo) => {
    if (!user) return;
    setDownloadError(undefined);
    try {
      await downloadSample(sample.file, user);
    } catch (err) {
      setDownloadError((err as Error).message);
    }
  };

  return (
    <section className="schema-sample card" aria-labelledby="schema-sample-title">
      <h2 id="schema-sample-title">
        Sample dataset
        {current && (
          <span className={`schema-badge ${current.synthetic ? '' : 'schema-badge--real'}`}>
            {current.synthetic ? 'Synthetic' : 'Real data'}
          </span>
        )}
      </h2>
      {offered.length > 1 && load.state === 'ready' && (
        <label className="schema-sample-pick">
          Sample
          <select
            className="qs-select"
            value={file ?? ''}
            onChange={(e) => {
              const next = shipped.find((s) => s.file === e.target.value);
              if (next) onChoose(next);
            }}
          >
            {offered.map(({ def, info }) => (
              <option key={def.id} value={def.file} disabled={!info}>
                {def.label}
              </option>
            ))}
          </select>
        </label>
      )}
      {load.state === 'loading' && <p className="muted">Loading the sample datasets…</p>}
      {load.state === 'failed' && (
        <p className="form-error" role="alert">
          The sample datasets could not be loaded.
        </p>
      )}
      {load.state === 'ready' && !current && (
        <p className="muted">
          {currentDef ? (
            <>
              {currentDef.label} (<code>{currentDef.file}</code>) is not shipped with this build yet.
            </>
          ) : (
            <>This problem has no shipped sample dataset.</>
          )}
        </p>
      )}
      {current && (
        <>
          <p className="schema-sample-label">
            <strong>{current.label}</strong> · <code>{current.file}</code> ·{' '}
            <span data-testid="sample-rows">{current.rows.toLocaleString('en-US')} rows</span>
          </p>
          <p className="muted schema-sample-source">
            Source: {current.source}. Licence: {current.licence}.
          </p>
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
          {user && (
            <p className="schema-sample-actions">
              <button type="button" className="button secondary" onClick={() => void download(current)}>
                Download CSV
              </button>
            </p>
          )}
          {downloadError && (
            <p className="form-error" role="alert">
              {downloadError}
            </p>
          )}
        </>
      )}
    </section>
  );
}
