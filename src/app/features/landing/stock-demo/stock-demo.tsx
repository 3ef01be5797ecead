import type { ApexOptions } from 'apexcharts';
import { DEMO_SYMBOLS } from '../../../../engine/stock-demo';
import {
  FIRST_DAY,
  FIRST_MONTH,
  FIRST_YEAR,
  LAST_YEAR,
  predictionDays,
  type FilterMode,
} from './demo-inputs';
import { LazyChart } from '../../../components/lazy-chart';
import { useStockDemo } from './use-stock-demo';
import './stock-demo.css';

const PERIODS = [
  { value: 'day', label: 'Single day' },
  { value: 'week', label: 'Week (today plus 6 days)' },
  { value: 'month', label: 'Month (today plus 29 days)' },
] as const;
const FILTERS: { value: FilterMode; label: string }[] = [
  { value: 'none', label: 'None' },
  { value: 'year', label: 'Year' },
  { value: 'month', label: 'Month' },
  { value: 'range', label: 'Date range' },
];
const YEARS = Array.from({ length: LAST_YEAR - FIRST_YEAR + 1 }, (_, i) => String(FIRST_YEAR + i));

const time = (day: string) => Date.parse(`${day}T00:00:00Z`);

/**
 * The landing page's live stock-prediction demo: real daily closes of the chosen symbol (streamed
 * from the server) and the chosen model's step-by-step predictions for the period, on one chart, with
 * the average predicted price. The page says up to which day the history is real.
 */
export function StockDemo() {
  const { state, update } = useStockDemo();
  const { inputs, today, symbols } = state;
  const facts = symbols.find((s) => s.symbol === inputs.symbol);
  const { start, end } = predictionDays(inputs, today);
  const average =
    state.predictions.length > 0
      ? state.predictions.reduce((sum, p) => sum + p.predicted_price, 0) / state.predictions.length
      : null;
  const series = [
    { name: 'Historical close (real)', data: state.history.map((r) => [time(r.date), r.close]) },
    { name: 'Predicted close', data: state.predictions.map((p) => [time(p.date), p.predicted_price]) },
  ];
  const options: ApexOptions = {
    chart: {
      id: 'stock-demo',
      animations: { enabled: false },
      toolbar: { show: false },
      zoom: { enabled: false },
    },
    xaxis: { type: 'datetime' },
    yaxis: { labels: { formatter: (v: number) => v.toFixed(2) }, title: { text: 'Close (USD)' } },
    stroke: { width: [1.5, 2.5], dashArray: [0, 4] },
    colors: ['#2563eb', '#dc2626'],
    markers: { size: [0, 3] },
    legend: { position: 'top' },
    tooltip: { x: { format: 'yyyy-MM-dd' } },
  };

  return (
    <section id="live-demo" className="landing-section stock-demo" aria-labelledby="stock-demo-title">
      <h2 id="stock-demo-title">Live stock-prediction demo</h2>
      <p className="muted section-lead">
        Real daily prices and the platform&apos;s own models: a classical recurrent network or a hybrid
        quantum model, trained once on the symbol&apos;s history and continued day by day past its last real
        day.
      </p>
      <form className="stock-demo-inputs" onSubmit={(e) => e.preventDefault()} aria-label="Demo inputs">
        <label>
          Symbol
          <select value={inputs.symbol} onChange={(e) => update({ symbol: e.target.value })} name="symbol">
            {DEMO_SYMBOLS.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Model
          <select
            value={inputs.model}
            onChange={(e) => update({ model: e.target.value as 'classical' | 'quantum' })}
            name="model"
          >
            <option value="classical">Classical</option>
            <option value="quantum">Quantum</option>
          </select>
        </label>
        <label>
          Period
          <select
            value={inputs.period}
            onChange={(e) => update({ period: e.target.value as (typeof PERIODS)[number]['value'] })}
            name="period"
          >
            {PERIODS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
        {inputs.period === 'day' ? (
          <label>
            Date
            <input
              type="date"
              name="date"
              min={today}
              value={inputs.date}
              onChange={(e) => update({ date: e.target.value })}
            />
          </label>
        ) : (
          <>
            <label>
              Start date
              <input type="date" name="prediction_start" value={start} readOnly />
            </label>
            <label>
              End date
              <input type="date" name="prediction_end" value={end} readOnly />
            </label>
          </>
        )}
        <label>
          Historical filter
          <select
            value={inputs.filterMode}
            onChange={(e) => update({ filterMode: e.target.value as FilterMode })}
            name="filter_mode"
          >
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        {inputs.filterMode === 'year' && (
          <label>
            Year
            <select value={inputs.year} onChange={(e) => update({ year: e.target.value })} name="year">
              {YEARS.map((y) => (
                <option key={y}>{y}</option>
              ))}
            </select>
          </label>
        )}
        {inputs.filterMode === 'month' && (
          <label>
            Month
            <input
              type="text"
              name="month"
              inputMode="numeric"
              placeholder="YYYY-MM"
              title={`${FIRST_MONTH} to ${today.slice(0, 7)}`}
              value={inputs.month}
              onChange={(e) => update({ month: e.target.value })}
            />
          </label>
        )}
        {inputs.filterMode === 'range' && (
          <>
            <label>
              From
              <input
                type="date"
                name="start_date"
                min={FIRST_DAY}
                max={today}
                value={inputs.startDate}
                onChange={(e) => update({ startDate: e.target.value })}
              />
            </label>
            <label>
              To
              <input
                type="date"
                name="end_date"
                min={FIRST_DAY}
                max={today}
                value={inputs.endDate}
                onChange={(e) => update({ endDate: e.target.value })}
              />
            </label>
          </>
        )}
      </form>

      {facts && (
        <p className="stock-demo-facts" data-testid="history-facts">
          {facts.symbol}: real history from {facts.first_date} to <strong>{facts.last_date}</strong>
          {facts.close_only ? ' (closing prices only)' : ''}; every later day is a prediction. Source:{' '}
          {facts.source}, {facts.licence}.
        </p>
      )}
      {state.socketMessage && (
        <p className="stock-demo-message warning" role="status" data-testid="socket-message">
          {state.socketMessage}
        </p>
      )}
      {state.historyMessage && (
        <p className="stock-demo-message error" role="alert" data-testid="history-message">
          {state.historyMessage}
        </p>
      )}
      {/* A model still training is news to wait for, not an error: a polite status region, kept in
          the page so that screen readers announce the text when it appears. */}
      <div role="status" aria-live="polite" data-testid="prediction-status">
        {state.predictionMessage && state.predictionPreparing && (
          <p className="stock-demo-message warning" data-testid="prediction-message">
            {state.predictionMessage}
          </p>
        )}
      </div>
      {state.predictionMessage && !state.predictionPreparing && (
        <p className="stock-demo-message error" role="alert" data-testid="prediction-message">
          {state.predictionMessage}
        </p>
      )}
      <div className="stock-demo-summary">
        {state.loading ? (
          <span className="muted" data-testid="demo-loading">
            Loading...
          </span>
        ) : average !== null ? (
          <span data-testid="average-price">
            Average predicted price ({state.predictions.length} trading day
            {state.predictions.length === 1 ? '' : 's'}, {start} to {end}):{' '}
            <strong>${average.toFixed(2)}</strong>
          </span>
        ) : null}
      </div>
      <div className="stock-demo-chart" data-testid="demo-chart">
        {state.history.length === 0 && state.predictions.length === 0 ? (
          <p className="muted">No Data Available</p>
        ) : (
          <LazyChart type="line" height={360} series={series} options={options} />
        )}
      </div>
      {state.predictions.length > 0 && (
        // The predicted days are a few points years after the history: drawn again on their own scale.
        <figure className="stock-demo-chart predicted-only" data-testid="predicted-chart">
          <figcaption>
            Predicted period: {start} to {end} (history is real up to {state.historyUntil ?? facts?.last_date}
            )
          </figcaption>
          <LazyChart
            type="line"
            height={220}
            series={[series[1]!]}
            options={{
              ...options,
              chart: { ...options.chart, id: 'stock-demo-predicted' },
              colors: ['#dc2626'],
              stroke: { width: 2 },
              markers: { size: 4 },
            }}
          />
        </figure>
      )}
    </section>
  );
}
