import type { Problem } from '../../../../../engine';
import type { OutputDetail } from '../../../../api/outputs';
import { formatMetric, metricLabel } from '../output-rules';
import { compareOutputs, SPLITS_DIFFER } from '../list-rules';
import { useOutputDetails } from '../use-output-details';

/** The pinned outputs' metrics side by side, with a note on whether they ran on the same data split. */
export function CompareOutputs({
  problem,
  outputIds,
  onClose,
}: {
  problem: Problem;
  outputIds: number[];
  onClose(): void;
}) {
  const { details, error } = useOutputDetails(outputIds);

  const comparison = details ? compareOutputs(problem, details) : null;
  return (
    <section className="card output-compare" data-testid="output-compare" aria-label="Compare outputs">
      <div className="detail-head">
        <h3>Compare outputs</h3>
        <button type="button" className="button secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : !comparison ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          <p
            className={`output-compare-note${comparison.sameSplit ? '' : ' warning'}`}
            data-testid="compare-split"
          >
            {comparison.sameSplit ? sameSplitText(details![0]) : SPLITS_DIFFER}
          </p>
          <table className="metrics-table" data-testid="compare-table">
            <thead>
              <tr>
                <th scope="col">Metric</th>
                {comparison.names.map((name) => (
                  <th scope="col" key={name}>
                    {name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {comparison.rows.map((row) => (
                <tr key={row.metric} data-metric={row.metric}>
                  <th scope="row">{metricLabel(row.metric)}</th>
                  {row.values.map((value, index) => (
                    <td key={comparison.names[index]}>{formatMetric(value)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function sameSplitText(first: OutputDetail): string {
  const data = first.dataset
    ? `${first.dataset.label}${first.dataset.rows_used === null ? '' : `, ${first.dataset.rows_used} rows used`}`
    : 'the same dataset';
  return `Same dataset and split: ${data}.`;
}
