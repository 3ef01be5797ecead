import { useMemo, useState, type ChangeEvent } from 'react';
import { visibleColumns } from '../../../../../engine';
import { ChartSpecView } from '../../../../components/chart-spec-view';
import { browserRegistry } from '../../../../../renderers/browser-registry';
import { useAuth } from '../../../../session/auth-context';
import { NOT_LOGGED_IN } from '../../../../session/not-logged-in';
import {
  runInference,
  uploadDataset,
  type InferenceResult,
  type OutputDetail,
} from '../../../../api/outputs';
import { previewCell } from '../../../../format/numbers';
import { parseCsvPreview, PREVIEW_ROWS } from './csv-preview';
import { inferenceSummary } from './inference-summary';
import { formatMetric } from '../output-rules';

/** The problem file's inference messages (spec section 5), with the spec's words when it has none. */
function inferenceMessages(problemId: string): { csv: string; feature: string } {
  const inference = browserRegistry().findProblem(problemId)?.inference;
  return {
    csv: inference?.file.messages?.type ?? 'Please upload a csv file',
    feature: inference?.messages?.noFeature ?? 'Please select a feature',
  };
}

/** A chosen file's text (FileReader: every browser, and jsdom, has it). */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ''));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read'));
    reader.readAsText(file);
  });
}

/** The features the model was trained on, as the run's app_data names them (preselected when present). */
function trainedFeatures(detail: OutputDetail): string[] {
  const preprocess = detail.app_data?.preprocess as { training_features?: unknown } | undefined;
  const features = preprocess?.training_features;
  return Array.isArray(features) ? features.filter((f): f is string => typeof f === 'string') : [];
}

/**
 * The Model Inference tab (spec sections 2 and 5): a CSV file, feature checkboxes, 'Start Inferencing'
 * (the file is uploaded for a url, then the output's stored model predicts it), a preview of the first
 * 30 rows and an Actual vs Predicted table.
 */
export function InferenceTab({ detail }: { detail: OutputDetail }) {
  const { user } = useAuth();
  const messages = useMemo(() => inferenceMessages(detail.problem_id), [detail.problem_id]);
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<ReturnType<typeof parseCsvPreview> | null>(null);
  const [features, setFeatures] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<InferenceResult | null>(null);

  const problem = browserRegistry().findProblem(detail.problem_id);
  const choices =
    problem && preview ? visibleColumns(preview.columns, problem.platform) : (preview?.columns ?? []);

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const picked = event.target.files?.[0] ?? null;
    setResult(null);
    setError(null);
    setPreview(null);
    setFile(null);
    if (!picked) return;
    if (!picked.name.toLowerCase().endsWith('.csv')) {
      setError(messages.csv);
      return;
    }
    const parsed = parseCsvPreview(await readText(picked));
    setFile(picked);
    setPreview(parsed);
    const trained = trainedFeatures(detail);
    setFeatures(parsed.columns.filter((column) => trained.includes(column)));
  };

  const toggle = (column: string) =>
    setFeatures((current) =>
      current.includes(column) ? current.filter((c) => c !== column) : [...current, column],
    );

  const start = async () => {
    setError(null);
    setResult(null);
    if (!file) return setError(messages.csv);
    if (features.length === 0) return setError(messages.feature);
    if (!user) return setError(NOT_LOGGED_IN);
    setBusy(true);
    try {
      const url = await uploadDataset(user, file);
      setResult(
        await runInference(detail.problem_id, user.id, detail.application_id, {
          features,
          data_url: url,
          output_id: detail.id,
        }),
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="output-inference">
      <div className="card">
        <label className="inference-file">
          CSV file{' '}
          <input
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => void choose(e)}
            data-testid="inference-file"
          />
        </label>
        {preview && (
          <fieldset className="inference-features">
            <legend>Features</legend>
            {choices.map((column) => (
              <label key={column}>
                <input type="checkbox" checked={features.includes(column)} onChange={() => toggle(column)} />{' '}
                {column}
              </label>
            ))}
          </fieldset>
        )}
        <button type="button" className="button primary" onClick={() => void start()} disabled={busy}>
          {busy ? 'Inferencing…' : 'Start Inferencing'}
        </button>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </div>
      {preview && preview.columns.length > 0 && (
        <div className="card">
          <h2>Preview</h2>
          <div className="output-table-wrap">
            <table className="output-table" data-testid="inference-preview">
              <thead>
                <tr>
                  {preview.columns.map((column) => (
                    <th key={column} scope="col">
                      {column}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {preview.rows.map((row, index) => (
                  <tr key={index}>
                    {row.map((cell, column) => (
                      <td key={column} title={previewCell(cell) === cell ? undefined : cell}>
                        {previewCell(cell)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {preview.total > PREVIEW_ROWS && <p className="muted">Only showing {PREVIEW_ROWS} rows</p>}
        </div>
      )}
      {result && (
        <div className="card">
          <h2>Actual vs Predicted</h2>
          <p className="muted" data-testid="inference-summary">
            {inferenceSummary(result)}
          </p>
          <ChartSpecView
            spec={{
              type: 'line',
              title: 'Actual and predicted value per row',
              label: 'value',
              series: [
                { name: 'actual', data: result.actual },
                { name: 'predicted', data: result.predicted },
              ],
              categories: result.predicted.map((_, index) => index + 1),
            }}
          />
          <div className="output-table-wrap">
            <table className="output-table" data-testid="inference-result">
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">Actual</th>
                  <th scope="col">Predicted</th>
                </tr>
              </thead>
              <tbody>
                {result.predicted.map((predicted, index) => (
                  <tr key={index}>
                    <td>{index + 1}</td>
                    <td>{formatMetric(result.actual[index])}</td>
                    <td>{formatMetric(predicted)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </div>
  );
}
