import { useMemo, useState, type ReactNode } from 'react';
import type { AppData, Problem } from '../../../../../engine';
import { repeatsCurvesOf } from '../../../../components/chart-bands';
import { Tabs } from '../../../../components/tabs';
import {
  DatasetNote,
  MetricsTable,
  OutputCharts,
  outputView,
  ResultLogs,
  useLiveOutput,
} from './output-parts';
import { RepeatsSummary } from './repeats-summary';
import { InferenceTab } from '../inference/inference-tab';
import { offersInference, predictedColumn, TABS } from '../output-rules';
import { OutputSummary } from './output-summary';
import { configurationChanges, SAME_CONFIGURATION } from '../list-rules';
import { WhatIfControl } from '../what-if/what-if-control';

type SubTab = 'metrics' | 'visualization' | 'logs' | 'inference';
const SUB_TABS: { id: SubTab; title: string }[] = [
  { id: 'metrics', title: 'Metrics' },
  { id: 'visualization', title: 'Visualization' },
  { id: 'logs', title: 'Result logs' },
];
/** The output page's Model Inference, here too once the run has stored its model. */
const INFERENCE_TAB: { id: SubTab; title: string } = { id: 'inference', title: TABS.inference };

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
  const output = useLiveOutput(outputId);
  const { detail, live, status, ongoing } = output;
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
      <OutputSummary
        output={output}
        onDeleted={onBack}
        actions={
          <>
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
          </>
        }
      >
        {(shown) => (
          <>
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
            <SubTabs tab={tab} onSelect={setTab} inference={offersInference(shown)}>
              {tab === 'metrics' && (
                <>
                  <DatasetNote dataset={shown.dataset} />
                  <MetricsTable
                    metrics={outputView(shown, live, ongoing).metrics}
                    baseline={shown.baseline}
                    modelName={shown.trained_model_type}
                    target={predictedColumn(shown.app_data)}
                  />
                  <RepeatsSummary detail={shown} />
                </>
              )}
              {tab === 'visualization' && (
                <OutputCharts
                  charts={outputView(shown, live, ongoing).charts}
                  ongoing={ongoing}
                  name={shown.name}
                  repeats={repeatsCurvesOf(shown.output_data)}
                />
              )}
              {tab === 'logs' && <ResultLogs logs={outputView(shown, live, ongoing).logs} />}
              {tab === 'inference' && offersInference(shown) && <InferenceTab detail={shown} />}
            </SubTabs>
          </>
        )}
      </OutputSummary>
    </div>
  );
}

function SubTabs({
  tab,
  onSelect,
  inference,
  children,
}: {
  tab: SubTab;
  onSelect(tab: SubTab): void;
  inference: boolean;
  children: ReactNode;
}) {
  return (
    <Tabs
      label="Output details"
      idPrefix="workspace-output"
      tabs={inference ? [...SUB_TABS, INFERENCE_TAB] : SUB_TABS}
      selected={tab}
      onSelect={onSelect}
    >
      {children}
    </Tabs>
  );
}
