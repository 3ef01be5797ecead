import { previewCell } from '../../../../format/numbers';
import type { ParsedDataset } from '../../workspace-types';
import { PREVIEW_ROWS } from './csv-summary';

/** The first rows of the dataset, scrollable both ways. */
export function DatasetPreview({ parsed, message }: { parsed: ParsedDataset; message: string }) {
  return (
    <div className="dataset-preview-box">
      <div className="dataset-preview-scroll">
        <table className="dataset-preview" data-testid="dataset-preview">
          <thead>
            <tr>
              {parsed.columns.map((c, i) => (
                <th key={`${i}-${c}`}>{c}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {parsed.preview.map((row, r) => (
              <tr key={r}>
                {parsed.columns.map((c, i) => {
                  const text = row[c] ?? '';
                  const shown = previewCell(text);
                  // The file's own digits stay one hover away when the cell is rounded.
                  return (
                    <td key={`${i}-${c}`} title={shown === text ? undefined : text}>
                      {shown}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {parsed.rowCount > PREVIEW_ROWS && <p className="qs-hint">{message}</p>}
    </div>
  );
}

/** '{rows} rows × {cols} columns' and the dropped rows, or the empty text. */
export function DataInfo({ parsed, empty }: { parsed: ParsedDataset | null; empty: string }) {
  return (
    <section className="dataset-info" data-testid="data-info" aria-label="Data info">
      {parsed ? (
        <>
          <p>
            {parsed.rowCount.toLocaleString('en-US')} rows × {parsed.columns.length} columns
          </p>
          {parsed.droppedRows > 0 && (
            <p className="qs-hint">
              {parsed.droppedRows.toLocaleString('en-US')} rows dropped (their column count differs from the
              header)
            </p>
          )}
        </>
      ) : (
        <p>{empty}</p>
      )}
    </section>
  );
}
