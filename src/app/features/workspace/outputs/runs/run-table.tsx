import { memo, useCallback, useEffect, useMemo, useState } from 'react';
import { ChartSpecView } from '../../../../components/chart-spec-view';
import { StatusBadge } from '../../../../components/status-badge';
import { formatMetric } from '../output-rules';
import {
  curvesChart,
  filterRuns,
  metricBySetting,
  parseMetricFilter,
  sortRuns,
  type Column,
  type Run,
} from './run-table-rules';
import { getRunTable, type RunTableData } from './runs-api';

/**
 * An application's outputs as a run table (as MLflow and Weights & Biases users expect): sortable metric
 * and setting columns, search or filter by metric ('rmse < 0.3'), any number of runs selected to overlay
 * their curves, and one metric plotted against one setting.
 */

const settingLabel = (key: string) => key.split('.').at(-1)!.replace(/_/g, ' ');
const shown = (value: unknown) =>
  value === undefined || value === null
    ? '—'
    : typeof value === 'number'
      ? formatMetric(value)
      : String(value);
const sameColumn = (a: Column, b: Column) =>
  a.kind === b.kind && (a.kind === 'id' || a.key === (b as { key: string }).key);

export function RunTable({ applicationId, onClose }: { applicationId: number; onClose(): void }) {
  const [data, setData] = useState<RunTableData | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    getRunTable(applicationId, controller.signal).then(setData, (e: Error) => {
      if (!controller.signal.aborted) setError(e.message);
    });
    return () => controller.abort();
  }, [applicationId]);

  return (
    <section className="card run-table" aria-label="Run table" data-testid="run-table">
      <div className="detail-head">
        <h3>Run table</h3>
        <button type="button" className="button secondary" onClick={onClose}>
          Back to outputs
        </button>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : data ? (
        <Runs data={data} />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </section>
  );
}

export function Runs({ data }: { data: RunTableData }) {
  const metricNames = useMemo(() => data.metrics.map((m) => m.name), [data]);
  // the settings that differ between the runs (the server lists them first)
  const settings = useMemo(
    () =>
      data.settings.filter(
        (key) => new Set(data.runs.map((r) => JSON.stringify(r.settings[key] ?? null))).size > 1,
      ),
    [data],
  );
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<{ column: Column; direction: 'ascending' | 'descending' }>({
    column: { kind: 'id' },
    direction: 'descending',
  });
  const [selected, setSelected] = useState<number[]>([]);
  const [plotMetric, setPlotMetric] = useState(metricNames[0] ?? '');
  const [plotSetting, setPlotSetting] = useState(settings[0] ?? '');

  const rows = useMemo(
    () => sortRuns(filterRuns(data.runs, query, metricNames), sort.column, sort.direction),
    [data, query, metricNames, sort],
  );
  const filter = parseMetricFilter(query, metricNames);
  const selectedIds = useMemo(() => new Set(selected), [selected]);
  const chosen = useMemo(() => data.runs.filter((run) => selectedIds.has(run.id)), [data, selectedIds]);
  // The charts are kept while the table is sorted or filtered: redrawing them took most of a
  // sort's or a filter's time with 200 runs (npm run bench:run-table).
  const curvesView = useMemo(() => {
    const curves = curvesChart(chosen);
    return curves && <ChartSpecView spec={curves.spec} bands={curves.bands} />;
  }, [chosen]);
  const metricLabel = data.metrics.find((m) => m.name === plotMetric)?.label ?? plotMetric;
  const plotView = useMemo(() => {
    const plot =
      plotMetric && plotSetting
        ? metricBySetting(chosen.length > 1 ? chosen : data.runs, plotMetric, plotSetting, metricLabel)
        : null;
    return plot && <ChartSpecView spec={plot} />;
  }, [chosen, data, plotMetric, plotSetting, metricLabel]);

  const sortBy = (column: Column) =>
    setSort((current) => ({
      column,
      direction:
        sameColumn(current.column, column) && current.direction === 'ascending' ? 'descending' : 'ascending',
    }));
  const ariaSort = (column: Column) => (sameColumn(sort.column, column) ? sort.direction : 'none');
  const header = (column: Column, label: string) => (
    <th
      scope="col"
      aria-sort={ariaSort(column)}
      key={column.kind === 'id' ? 'id' : `${column.kind}:${column.key}`}
    >
      <button type="button" className="link-button" onClick={() => sortBy(column)}>
        {label}
      </button>
    </th>
  );
  const toggle = useCallback(
    (id: number) => setSelected((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id])),
    [],
  );

  return (
    <>
      <input
        type="search"
        className="input"
        aria-label="Search or filter runs"
        style={{ minWidth: '24rem' }}
        placeholder="Search, or filter by a metric: rmse < 0.3"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
      />
      <p className="muted" data-testid="run-count">
        {rows.length} of {data.runs.length} runs
        {filter ? ` with ${filter.metric} ${filter.op} ${filter.value}` : ''}; {selected.length} selected
      </p>
      <div className="applications-table-wrap">
        <table className="metrics-table" data-testid="runs">
          <thead>
            <tr>
              <th scope="col">Select</th>
              {header({ kind: 'id' }, 'Run')}
              <th scope="col">Status</th>
              <th scope="col">Model</th>
              {data.metrics.map((m) => header({ kind: 'metric', key: m.name }, m.label))}
              {settings.map((key) => header({ kind: 'setting', key }, settingLabel(key)))}
            </tr>
          </thead>
          <tbody>
            {rows.map((run) => (
              <RunRow
                key={run.id}
                run={run}
                metrics={metricNames}
                settings={settings}
                selected={selectedIds.has(run.id)}
                onToggle={toggle}
              />
            ))}
          </tbody>
        </table>
      </div>
      {curvesView}
      {data.metrics.length > 0 && settings.length > 0 && (
        <div className="run-plot">
          <label>
            Metric{' '}
            <select className="input" value={plotMetric} onChange={(e) => setPlotMetric(e.target.value)}>
              {data.metrics.map((m) => (
                <option key={m.name} value={m.name}>
                  {m.label}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            against{' '}
            <select className="input" value={plotSetting} onChange={(e) => setPlotSetting(e.target.value)}>
              {settings.map((key) => (
                <option key={key} value={key}>
                  {settingLabel(key)}
                </option>
              ))}
            </select>
          </label>
          {plotView}
        </div>
      )}
    </>
  );
}

/** One run's row; unchanged rows are not drawn again when the table is sorted, filtered or selected. */
const RunRow = memo(function RunRow({
  run,
  metrics,
  settings,
  selected,
  onToggle,
}: {
  run: Run;
  metrics: string[];
  settings: string[];
  selected: boolean;
  onToggle(id: number): void;
}) {
  return (
    <tr data-run-id={run.id}>
      <td>
        <input
          type="checkbox"
          checked={selected}
          onChange={() => onToggle(run.id)}
          aria-label={`Select run ${run.id}`}
        />
      </td>
      <th scope="row">#{run.id}</th>
      <td>
        <StatusBadge status={run.status} />
      </td>
      <td>{run.model ?? '—'}</td>
      {metrics.map((name) => (
        <td key={name}>{shown(run.metrics[name])}</td>
      ))}
      {settings.map((key) => (
        <td key={key}>{shown(run.settings[key])}</td>
      ))}
    </tr>
  );
});
