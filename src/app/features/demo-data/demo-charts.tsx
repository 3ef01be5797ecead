/** Small, dependency-free charts of the demo sections (the landing page stays light). */

const WIDTH = 360;
const HEIGHT = 180;
const PAD = 28;
/** Room left of the plot for the loss values and the axis title. */
const LEFT = 52;

function points(values: number[], min: number, max: number): string {
  const span = max - min || 1;
  const step = values.length > 1 ? (WIDTH - LEFT - PAD) / (values.length - 1) : 0;
  return values
    .map(
      (value, index) =>
        `${LEFT + index * step},${HEIGHT - PAD - ((value - min) / span) * (HEIGHT - 2 * PAD)}`,
    )
    .join(' ');
}

/** Training and test loss per epoch: two lines on shared axes, with a legend. */
export function LossChart({
  train = [],
  test = [],
  title,
}: {
  train?: number[];
  test?: number[];
  title: string;
}) {
  const all = [...train, ...test];
  const min = Math.min(...all);
  const max = Math.max(...all);
  const epochs = Math.max(train.length, test.length);
  return (
    <figure className="demo-chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${title}: training and test loss per epoch`}
      >
        <line x1={LEFT} y1={HEIGHT - PAD} x2={WIDTH - PAD} y2={HEIGHT - PAD} className="demo-axis" />
        <line x1={LEFT} y1={PAD} x2={LEFT} y2={HEIGHT - PAD} className="demo-axis" />
        {/* The loss axis: its highest and lowest values, and its title. */}
        <text x={LEFT - 4} y={PAD + 4} textAnchor="end" className="demo-tick">
          {max.toFixed(3)}
        </text>
        <text x={LEFT - 4} y={HEIGHT - PAD} textAnchor="end" className="demo-tick">
          {min.toFixed(3)}
        </text>
        <text
          x={10}
          y={HEIGHT / 2}
          textAnchor="middle"
          transform={`rotate(-90 10 ${HEIGHT / 2})`}
          className="demo-tick"
        >
          Loss
        </text>
        {/* The epoch axis: the first and last epoch, and its title. */}
        <text x={LEFT} y={HEIGHT - PAD + 14} textAnchor="middle" className="demo-tick">
          1
        </text>
        {epochs > 1 && (
          <text x={WIDTH - PAD} y={HEIGHT - PAD + 14} textAnchor="middle" className="demo-tick">
            {epochs}
          </text>
        )}
        <text x={(LEFT + WIDTH - PAD) / 2} y={HEIGHT - 4} textAnchor="middle" className="demo-tick">
          Epoch
        </text>
        {train.length > 0 && <polyline points={points(train, min, max)} className="demo-line train" />}
        {test.length > 0 && <polyline points={points(test, min, max)} className="demo-line test" />}
      </svg>
      <figcaption className="demo-legend">
        <span className="train">Training loss</span> <span className="test">Test loss</span>
      </figcaption>
    </figure>
  );
}

/** Spec: heatmap colour ranges are thirds of the largest count. */
export function heatLevel(value: number, max: number): 'low' | 'mid' | 'high' {
  if (max <= 0 || value <= max / 3) return 'low';
  return value <= (2 * max) / 3 ? 'mid' : 'high';
}

/**
 * A confusion matrix: rows are the true class, columns the predicted class, both headed by the class
 * names when the run gives one per row, by the class index otherwise.
 */
export function ConfusionHeatmap({
  matrix,
  title,
  labels,
}: {
  matrix: number[][];
  title: string;
  labels?: string[] | null;
}) {
  const max = Math.max(...matrix.flat());
  const named = labels && labels.length === matrix.length ? labels : null;
  const name = (index: number) => named?.[index] ?? String(index);
  return (
    <table className="demo-confusion" aria-label={`${title}: confusion matrix`}>
      <thead>
        <tr>
          <th scope="col">True \ Predicted</th>
          {matrix[0]?.map((_, column) => (
            <th key={column} scope="col">
              {name(column)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {matrix.map((row, index) => (
          <tr key={index}>
            <th scope="row">{name(index)}</th>
            {row.map((value, column) => (
              <td key={column} className={`heat-${heatLevel(value, max)}`}>
                {value}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const factText = (value: unknown): string => {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.map(factText).join(', ');
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== null && inner !== undefined)
      .map(([key, inner]) => `${key}: ${factText(inner)}`)
      .join('; ');
  }
  return String(value);
};

/** What the run trained on, as its worker reported it (rows, split, window, features...), as a table. */
export function TrainingDataTable({ facts, title }: { facts: Record<string, unknown>; title: string }) {
  return (
    <div className="demo-table-wrap">
      <table className="demo-table" aria-label={`${title}: training data`}>
        <tbody>
          {Object.entries(facts).map(([key, value]) => (
            <tr key={key}>
              <th scope="row">{key.replaceAll('_', ' ')}</th>
              <td>{factText(value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
