import type { ApexOptions } from 'apexcharts';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { apiFetch } from '../../api/client';
import { LazyChart } from '../../components/lazy-chart';
import { addDays } from '../../../engine/stock-demo';
import './analytics.css';

interface Analytics {
  from: string;
  to: string;
  totals: { views: number; visitors: number; sessions: number; median_seconds: number | null };
  days: { day: string; views: number; visitors: number; sessions: number }[];
  top_pages: { page: string; views: number; visitors: number }[];
  time_on_page: { page: string; views: number; median_seconds: number }[];
  retention_days: number;
}

const todayUtc = () => new Date().toISOString().slice(0, 10);
const seconds = (s: number | null) =>
  s === null ? '–' : s < 60 ? `${s.toFixed(1)} s` : `${(s / 60).toFixed(1)} min`;

/**
 * The admin's analytics (GET /api/admin/analytics): page views, unique visitors and sessions per day,
 * the most visited pages and the median time on page, for a date range. Only what the tracking
 * stored: no addresses (network prefixes stay in the database), nothing from visitors who asked not
 * to be tracked.
 */
export function AnalyticsPage() {
  const [to, setTo] = useState(todayUtc);
  const [from, setFrom] = useState(() => addDays(todayUtc(), -29));
  const [data, setData] = useState<Analytics | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    apiFetch<{ data: Analytics }>(`/admin/analytics?from=${from}&to=${to}`).then(
      (reply) => {
        if (!current) return;
        setData(reply.data);
        setError(null);
      },
      (e: unknown) => {
        if (!current) return;
        setData(null);
        setError(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      current = false;
    };
  }, [from, to]);

  const perDay: ApexOptions = {
    chart: { id: 'analytics-days', toolbar: { show: false }, animations: { enabled: false } },
    xaxis: { type: 'datetime' },
    stroke: { width: 2 },
    markers: { size: 4 }, // a range of one day is one point
    legend: { position: 'top' },
    dataLabels: { enabled: false },
  };
  const pages: ApexOptions = {
    chart: { id: 'analytics-pages', toolbar: { show: false }, animations: { enabled: false } },
    plotOptions: { bar: { horizontal: true } },
    xaxis: { categories: data?.top_pages.map((p) => p.page) ?? [] },
    dataLabels: { enabled: false },
    legend: { position: 'top' },
  };
  const at = (day: string) => Date.parse(`${day}T00:00:00Z`);

  return (
    <section className="page analytics-page">
      <header className="page-header">
        <h1>Analytics</h1>
        <p className="muted">
          Page views and time on page. <Link to="/admin">Admin console</Link>
          {data && ` · Events are kept ${data.retention_days} days.`}
        </p>
      </header>
      <form className="analytics-range" onSubmit={(e) => e.preventDefault()} aria-label="Date range">
        <label>
          From
          <input type="date" name="from" value={from} max={to} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          To
          <input type="date" name="to" value={to} min={from} onChange={(e) => setTo(e.target.value)} />
        </label>
      </form>
      {error && (
        <p className="analytics-error" role="alert">
          {error}
        </p>
      )}
      {data && (
        <>
          <dl className="analytics-totals" data-testid="analytics-totals">
            <div>
              <dt>Page views</dt>
              <dd>{data.totals.views.toLocaleString('en-US')}</dd>
            </div>
            <div>
              <dt>Unique visitors</dt>
              <dd>{data.totals.visitors.toLocaleString('en-US')}</dd>
            </div>
            <div>
              <dt>Sessions</dt>
              <dd>{data.totals.sessions.toLocaleString('en-US')}</dd>
            </div>
            <div>
              <dt>Median time on page</dt>
              <dd>{seconds(data.totals.median_seconds)}</dd>
            </div>
          </dl>
          {data.days.length === 0 ? (
            <p className="muted">No Data Available</p>
          ) : (
            <div className="analytics-charts">
              <figure>
                <figcaption>Per day</figcaption>
                <LazyChart
                  type="line"
                  height={300}
                  options={perDay}
                  series={[
                    { name: 'Page views', data: data.days.map((d) => [at(d.day), d.views]) },
                    { name: 'Unique visitors', data: data.days.map((d) => [at(d.day), d.visitors]) },
                    { name: 'Sessions', data: data.days.map((d) => [at(d.day), d.sessions]) },
                  ]}
                />
              </figure>
              <figure>
                <figcaption>Most visited pages</figcaption>
                <LazyChart
                  type="bar"
                  height={300}
                  options={pages}
                  series={[
                    { name: 'Views', data: data.top_pages.map((p) => p.views) },
                    { name: 'Visitors', data: data.top_pages.map((p) => p.visitors) },
                  ]}
                />
              </figure>
            </div>
          )}
          <table className="analytics-table" data-testid="time-on-page">
            <caption>Median time on page</caption>
            <thead>
              <tr>
                <th scope="col">Page</th>
                <th scope="col">Timed views</th>
                <th scope="col">Median time</th>
              </tr>
            </thead>
            <tbody>
              {data.time_on_page.map((p) => (
                <tr key={p.page}>
                  <td>{p.page}</td>
                  <td>{p.views}</td>
                  <td>{seconds(p.median_seconds)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
