import { useMemo, useState, type ReactNode } from 'react';
import type { AppData, Problem } from '../../../../engine';
import { StatusBadge } from '../../../components/status-badge';
import { DemoTabs } from '../../demo-data/demo-tabs';
import {
  DatasetNote,
  FailureReason,
  LiveProgress,
  MetricsTable,
  OutputCharts,
  OutputFacts,
  outputView,
  ResultLogs,
  useLiveOutput,
} from '../../outputs/output-parts';
import { configurationChanges, SAME_CONFIGURATION } from './outputs-rules';
import { WhatIfControl } from './what-if-control';

type SubTab = 'metrics' | 'visualization' | 'logs';
const SUB_TABS: { id: SubTab; title: string }[] = [
  { id: 'metrics', title: 'Metrics' },
  { id: 'visualization', title: 'Visualization' },
  { id: 'logs', title: 'Result logs' },
];

interface Props {
  problem: Problem;
  outputId: number;
  /** The workspace's current app_data, which the output's configuration is compared with. */
  appData: AppData;
  /** A run is starting: a second one waits, like the top bar's Run. */
  running: boolean;
  onBack(): void;
  onRunAgain(appData: AppData): void;
}

/** One output inside the Outputs tab: sub-tabs Metrics, Visualization and Result logs; 'All Outputs' returns. */
export function OutputView({ problem, outputId, appData, running, onBack, onRunAgain }: Props) {
  const { detail, live, status, ongoing, error, stopping, stop } = useLiveOutput(outputId);
  const [tab, setTab] = useState<SubTab>('metrics');
  const ranWith = detail?.app_data as AppData | null | undefined;
  const changes = useMemo(
    () => (ranWith ? configurationChanges(problem, ranWith, appData) : null),
    [problem, ranWith, appData],
  );

  return (
    <div className="workspace-output">
      <div className="detail-head">
        <button type="button" className="button secondary" onClick={onBack}>
          All Outputs
        </button>
        <h2>{detail ? detail.name : `Output ${outputId}`}</h2>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {!detail || !status ? (
        !error && <p className="muted">Loading…</p>
      ) : (
        <>
          <div className="card output-summary">
            <dl className="detail-summary">
              <dt>Status</dt>
              <dd>
                <StatusBadge status={status} />
              </dd>
              <OutputFacts detail={detail} ongoing={ongoing} />
            </dl>
            <div className="detail-actions">
              {ongoing && (
                <button
                  type="button"
                  className="button danger"
                  onClick={() => void stop()}
                  disabled={stopping}
                >
                  Stop
                </button>
              )}
              {ranWith && (
                <button
                  type="button"
                  className="button primary"
                  onClick={() => onRunAgain(ranWith)}
                  disabled={running}
                >
                  Run again with these settings
                </button>
              )}
              {status === 'Completed' && <WhatIfControl outputId={outputId} />}
            </div>
          </div>
          {status === 'Failed' && <FailureReason detail={detail} live={live} />}
          {ongoing && <LiveProgress live={live} />}
          {changes && (
            <section className="card output-config-diff" data-testid="config-diff">
              <h3>This run's configuration → the current one</h3>
              {changes.length === 0 ? (
                <p className="muted">{SAME_CONFIGURATION}</p>
              ) : (
                <ul>
                  {changes.map((change) => (
                    <li key={change.path}>
                      <strong>{change.label}</strong>: {change.from} → {change.to}
                    </li>
                  ))}
                </ul>
              )}
            </section>
          )}
          <SubTabs tab={tab} onSelect={setTab}>
            {tab === 'metrics' && (
              <>
                <DatasetNote dataset={detail.dataset} />
                <MetricsTable
                  metrics={outputView(detail, live, ongoing).metrics}
                  baseline={detail.baseline}
                  modelName={detail.trained_model_type}
                />
              </>
            )}
            {tab === 'visualization' && (
              <OutputCharts
                charts={outputView(detail, live, ongoing).charts}
                ongoing={ongoing}
                name={detail.name}
              />
            )}
            {tab === 'logs' && <ResultLogs logs={outputView(detail, live, ongoing).logs} />}
          </SubTabs>
        </>
      )}
    </div>
  );
}

function SubTabs({
  tab,
  onSelect,
  children,
}: {
  tab: SubTab;
  onSelect(tab: SubTab): void;
  children: ReactNode;
}) {
  return (
    <DemoTabs
      label="Output details"
      idPrefix="workspace-output"
      tabs={SUB_TABS}
      selected={tab}
      onSelect={onSelect}
    >
      {children}
    </DemoTabs>
  );
}
