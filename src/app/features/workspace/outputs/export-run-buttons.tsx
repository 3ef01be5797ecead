import { useState } from 'react';
import { authHeaders, messageOf } from '../../../api/client';
import type { OutputDetail } from '../../../api/outputs';

export type ExportFormat = 'script' | 'notebook';

export const EXPORT_LABELS: Record<ExportFormat, string> = {
  script: 'Download as Python script',
  notebook: 'Download as notebook',
};

/** Only a completed training can be trained again from code (the server refuses anything else). */
export const exportable = (detail: OutputDetail) =>
  detail.status === 'Completed' &&
  detail.output_data.result_type === 'Training' &&
  detail.run_record !== null;

/** The file name the server gives in Content-Disposition, else one made of the output id. */
function fileNameOf(disposition: string | null, outputId: number, format: ExportFormat): string {
  const named = disposition && /filename="([^"]+)"/.exec(disposition)?.[1];
  return named || `qmlstudio_output_${outputId}.${format === 'script' ? 'py' : 'ipynb'}`;
}

/**
 * GET /api/application-outputs/{id}/export/{script|notebook}, saved under the server's name for it.
 * (A plain link would not carry the bearer token.)
 */
export async function downloadExport(outputId: number, format: ExportFormat): Promise<void> {
  const response = await fetch(`/api/application-outputs/${outputId}/export/${format}`, {
    headers: authHeaders(),
  });
  if (!response.ok) {
    let body: unknown = null;
    try {
      body = JSON.parse(await response.text());
    } catch {
      // not JSON: the status says enough
    }
    throw new Error(`Download failed: ${messageOf(body, response.status)}`);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileNameOf(response.headers.get('content-disposition'), outputId, format);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * A completed training's 'Download as Python script' and 'Download as notebook': code that trains the
 * same run again with the worker package (same body, seed and dataset, library versions checked) and
 * prints its metrics. A refusal is shown beside the buttons.
 */
export function ExportRunButtons({ detail }: { detail: OutputDetail }) {
  const [busy, setBusy] = useState<ExportFormat | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (!exportable(detail)) return null;
  const download = async (format: ExportFormat) => {
    setBusy(format);
    setError(null);
    try {
      await downloadExport(detail.id, format);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  };
  return (
    <>
      {(['script', 'notebook'] as const).map((format) => (
        <button
          key={format}
          type="button"
          className="button secondary"
          disabled={busy !== null}
          title="Code that trains this run again with the QML Studio worker and prints its metrics"
          onClick={() => void download(format)}
        >
          {busy === format ? 'Preparing…' : EXPORT_LABELS[format]}
        </button>
      ))}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
