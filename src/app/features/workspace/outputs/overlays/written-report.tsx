import type { ReactNode } from 'react';
import { ChartSpecView } from '../../../../components/chart-spec-view';
import type { ChartSpec } from '../../../../api/outputs';
import { overlayBands, type ChartBands, type SeriesSpread } from '../../../../components/chart-bands';
import { formatMetric } from '../output-rules';
import type { AnalysisReport, ComparisonReport } from './api/analysis-reports';
import './written-report.css';

/**
 * The server's written reports in the overlays: the analysis (its Markdown, drawn as text), the
 * comparison (conclusion, insights, recommendations, definitions; configurations with the differences
 * first; metrics with each baseline and the better run marked; both runs' curves on one chart), and a
 * Markdown download of the same report.
 */

/** **bold** inside a line, as text and <strong> (never HTML from the reply). */
function inline(text: string): ReactNode[] {
  return text
    .split(/(\*\*[^*]+\*\*)/)
    .map((part, index) =>
      part.startsWith('**') && part.endsWith('**') ? <strong key={index}>{part.slice(2, -2)}</strong> : part,
    );
}

/** The few Markdown forms a report uses: headings, bullets, a quoted note, paragraphs. */
export function MarkdownText({ markdown, skipTitle = false }: { markdown: string; skipTitle?: boolean }) {
  const blocks: ReactNode[] = [];
  let bullets: string[] = [];
  const flush = () => {
    if (bullets.length > 0) {
      const items = bullets;
      blocks.push(
        <ul key={`ul-${blocks.length}`}>
          {items.map((item, index) => (
            <li key={index}>{inline(item)}</li>
          ))}
        </ul>,
      );
      bullets = [];
    }
  };
  markdown.split('\n').forEach((line, index) => {
    if (line.startsWith('- ')) {
      bullets.push(line.slice(2));
      return;
    }
    flush();
    if (line.startsWith('# ')) {
      if (!skipTitle) blocks.push(<h3 key={index}>{inline(line.slice(2))}</h3>);
    } else if (line.startsWith('## ')) blocks.push(<h4 key={index}>{inline(line.slice(3))}</h4>);
    else if (line.startsWith('> ')) {
      blocks.push(
        <p key={index} className="output-compare-note warning" role="note">
          {inline(line.slice(2))}
        </p>,
      );
    } else if (line.trim() !== '') blocks.push(<p key={index}>{inline(line)}</p>);
  });
  flush();
  return <div className="written-report">{blocks}</div>;
}

/** Saves the report's Markdown as a file. */
export function MarkdownDownload({ markdown, fileName }: { markdown: string; fileName: string }) {
  const download = () => {
    const url = URL.createObjectURL(new Blob([markdown], { type: 'text/markdown' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <button type="button" className="button secondary no-print" onClick={download}>
      Download Markdown
    </button>
  );
}

export function AnalysisText({ report, outputId }: { report: AnalysisReport; outputId: number }) {
  return (
    <section aria-label="Written analysis" data-testid="written-analysis">
      <MarkdownText markdown={report.message.content} />
      <MarkdownDownload
        markdown={report.message.content}
        fileName={`output-${outputId}-analysis-${report.register}.md`}
      />
    </section>
  );
}

const shown = (value: unknown): string => {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return formatMetric(value);
  if (Array.isArray(value)) return value.map(shown).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

const SETTING_GROUPS: Record<string, string> = {
  dataset: 'dataset',
  preprocess: 'preprocess',
  model_configurations: 'model',
};

/** 'model › training model method' for model_configurations.training_model_method. */
const settingLabel = (key: string) =>
  key
    .split('.')
    .map((part, index) => (index === 0 ? (SETTING_GROUPS[part] ?? part) : part.replace(/_/g, ' ')))
    .join(' › ');

/**
 * The two runs' per-epoch series on one chart (each run's train and test loss); a run repeated over
 * seeds is drawn as its mean with a band.
 */
export function overlaidCurves(
  report: ComparisonReport,
): { spec: ChartSpec; bands: ChartBands | null } | null {
  const series: ChartSpec['series'] = [];
  const spreads: SeriesSpread[] = [];
  report.outputs.forEach((output, index) => {
    const curves = (index === 0 ? report.curves.a : report.curves.b) as Record<string, number[]> | null;
    const spread = index === 0 ? report.spread?.a : report.spread?.b;
    for (const [key, values] of Object.entries(curves ?? {})) {
      if (!/loss/.test(key) || values.length === 0) continue;
      const name = `#${output.id} ${key.replace(/_/g, ' ')}`;
      series.push({ name, data: values });
      const sd = spread?.sd[key as keyof typeof spread.sd];
      if (spread && sd) spreads.push({ name, seeds: spread.seeds, sd });
    }
  });
  if (series.length === 0) return null;
  const epochs = Math.max(...series.map((s) => s.data.length));
  const spec: ChartSpec = {
    type: 'line',
    title: 'Training curves of both runs',
    label: 'loss',
    series,
    categories: Array.from({ length: epochs }, (_, i) => i + 1),
  };
  return { spec, bands: overlayBands(spec, spreads) };
}

export function ComparisonText({ report }: { report: ComparisonReport }) {
  const [a, b] = report.outputs.map((o) => `#${o.id} ${o.model ?? ''}`.trim()) as [string, string];
  const curves = overlaidCurves(report);
  const { conclusion, insights, recommendations, definition } = report.interpreted;
  return (
    <section aria-label="Written comparison" data-testid="written-comparison">
      {report.note && (
        <p className="output-compare-note warning" role="note">
          {report.note}
        </p>
      )}
      <h3>Conclusion</h3>
      <p data-testid="comparison-conclusion">{conclusion}</p>
      <h4>Insights</h4>
      {insights.length > 0 ? (
        <ul>
          {insights.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">No insights available</p>
      )}
      <h4>Recommendations</h4>
      {recommendations.length > 0 ? (
        <ul>
          {recommendations.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">No recommendations available</p>
      )}
      <h4>Metrics</h4>
      <table className="metrics-table" data-testid="comparison-metrics">
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col">{a}</th>
            <th scope="col">Baseline</th>
            <th scope="col">{b}</th>
            <th scope="col">Baseline</th>
          </tr>
        </thead>
        <tbody>
          {report.metrics.map((row) => (
            <tr key={row.name} data-metric={row.name}>
              <th scope="row">{row.label}</th>
              <td className={row.better === 'a' ? 'better-run' : undefined}>
                {shown(row.a)}
                {row.better === 'a' && <span aria-label="better run"> ★</span>}
              </td>
              <td className="muted">{shown(row.baseline_a)}</td>
              <td className={row.better === 'b' ? 'better-run' : undefined}>
                {shown(row.b)}
                {row.better === 'b' && <span aria-label="better run"> ★</span>}
              </td>
              <td className="muted">{shown(row.baseline_b)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h4>Configurations</h4>
      <table className="metrics-table" data-testid="comparison-configurations">
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">{a}</th>
            <th scope="col">{b}</th>
          </tr>
        </thead>
        <tbody>
          {report.configurations.map((row) => (
            <tr key={row.key} className={row.differs ? 'differs' : 'muted'} data-differs={row.differs}>
              <th scope="row">{settingLabel(row.key)}</th>
              <td>{shown(row.a)}</td>
              <td>{shown(row.b)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {curves && <ChartSpecView spec={curves.spec} bands={curves.bands} />}
      {definition && (
        <>
          <h4>Definitions</h4>
          <ul>
            {definition.split('\n').map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </>
      )}
      <MarkdownDownload
        markdown={report.message.content}
        fileName={`outputs-${report.outputs.map((o) => o.id).join('-')}-comparison-${report.register}.md`}
      />
    </section>
  );
}
