import { useState } from 'react';
import type { MatPreview } from './mat-api';

/** Rows shown of the border and mask tables (the spec's preview length). */
const SHOWN = 30;
const round = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

/**
 * The inspection of a .mat dataset: its class counts, the 'Image Data' table of its first slices, and one
 * slice (thumbnail with its mask drawn over it, 'Tumor Border' points, 'Tumor Mask' runs); a slice picker
 * shows another one.
 */
export function MatPreviewView({
  preview,
  truncatedText,
  onShowSlice,
  loading,
}: {
  preview: MatPreview;
  truncatedText: string;
  onShowSlice(index: number): void;
  loading: boolean;
}) {
  const { slice } = preview;
  const [pick, setPick] = useState(String(slice.index));
  const pickNumber = Number(pick);
  const pickValid = Number.isInteger(pickNumber) && pickNumber >= 1 && pickNumber <= preview.count;
  const border = slice.tumor_border;
  const mask = slice.tumor_mask;
  return (
    <div className="bio-preview">
      <p className="bio-facts" data-testid="mat-facts">
        {preview.count} slices from {preview.patients} patients, {preview.image_size[0]}×
        {preview.image_size[1]} pixels:{' '}
        {Object.entries(preview.class_counts)
          .map(([name, n]) => `${name} ${n}`)
          .join(', ')}
      </p>

      <div className="bio-table-wrap">
        <table className="bio-table">
          <caption>Image Data</caption>
          <thead>
            <tr>
              <th scope="col">Index</th>
              <th scope="col">Label</th>
              <th scope="col">PID</th>
              <th scope="col">Size</th>
              <th scope="col">Min</th>
              <th scope="col">Max</th>
              <th scope="col">Mean</th>
            </tr>
          </thead>
          <tbody>
            {preview.image_data.map((row) => (
              <tr key={row.index}>
                <td>{row.index}</td>
                <td>
                  {row.label} ({row.label_name})
                </td>
                <td>{row.pid}</td>
                <td>
                  {row.height}×{row.width}
                </td>
                <td>{round(row.min)}</td>
                <td>{round(row.max)}</td>
                <td>{round(row.mean)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {preview.count > preview.image_data.length && <p className="qs-hint">{truncatedText}</p>}
      </div>

      <div className="bio-tables">
        <div className="bio-slice">
          <figure>
            <img
              src={`data:image/png;base64,${slice.thumbnail_png}`}
              alt={`Slice ${slice.index} with its tumor mask`}
              width={256}
              height={256}
            />
            <figcaption>
              Slice {slice.index}: {slice.label_name}. Mask in red, border in yellow.
            </figcaption>
          </figure>
          <form
            className="bio-row"
            onSubmit={(e) => {
              e.preventDefault();
              if (pickValid) onShowSlice(pickNumber);
            }}
          >
            <label>
              Slice{' '}
              <input
                type="number"
                className="qs-input bio-slice-input"
                min={1}
                max={preview.count}
                step={1}
                value={pick}
                onChange={(e) => setPick(e.target.value)}
              />
            </label>
            <button type="submit" className="qs-button" disabled={!pickValid || loading}>
              Show slice
            </button>
          </form>
          {!pickValid && pick !== '' && (
            <p className="form-error" role="alert">
              Slice must be a whole number from 1 to {preview.count}
            </p>
          )}
        </div>
        <div className="bio-table-wrap">
          <table className="bio-table">
            <caption>Tumor Border</caption>
            <thead>
              <tr>
                <th scope="col">Point</th>
                <th scope="col">x</th>
                <th scope="col">y</th>
              </tr>
            </thead>
            <tbody>
              {border.slice(0, SHOWN).map(([x, y], i) => (
                <tr key={i}>
                  <td>{i + 1}</td>
                  <td>{round(x)}</td>
                  <td>{round(y)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {border.length > SHOWN && <p className="qs-hint">{truncatedText}</p>}
        </div>
        <div className="bio-table-wrap">
          <table className="bio-table">
            <caption>Tumor Mask</caption>
            <thead>
              <tr>
                <th scope="col">Row (y)</th>
                <th scope="col">From x</th>
                <th scope="col">To x</th>
              </tr>
            </thead>
            <tbody>
              {mask.rows.slice(0, SHOWN).map(([y, x0, x1]) => (
                <tr key={`${y}-${x0}`}>
                  <td>{y}</td>
                  <td>{x0}</td>
                  <td>{x1}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="qs-hint">
            Area {mask.area} pixels; bounding box x {mask.bbox[0]} to {mask.bbox[2]}, y {mask.bbox[1]} to{' '}
            {mask.bbox[3]}.
          </p>
          {mask.rows.length > SHOWN && <p className="qs-hint">{truncatedText}</p>}
        </div>
      </div>
    </div>
  );
}
