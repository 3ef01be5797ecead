import { useCallback, useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { ApiError } from '../../../../api/client';
import { browserRegistry } from '../../../../../renderers/browser-registry';
import { PipelineFlow } from '../../../../../renderers';
import type { AppData } from '../../../../../engine';
import { repeatsCurvesOf } from '../../../../components/chart-bands';
import { Tabs } from '../../../../components/tabs';
import type { OutputDetail } from '../../../../api/outputs';
import { InferenceTab } from '../inference/inference-tab';
import { OutputSummary } from './output-summary';
import {
  DatasetNote,
  MetricsTable,
  OutputCharts,
  outputView,
  ResultLogs,
  useLiveOutput,
} from './output-parts';
import { RepeatsSummary } from './repeats-summary';
import { outputTabs, predictedColumn, TABS, type LiveState, type OutputTab } from '../output-rules';
import '../../../../styles/application-lists.css';
import '../outputs.css';

const TAB_IDS: Record<OutputTab, string> = {
  [TABS.inference]: 'inference',
  [TABS.pipeline]: 'pipeline',
  [TABS.results]: 'results',
  [TABS.visualization]: 'visualization',
};

/**
 * /applications/:appId/outputs/:outputId (spec section 2, output detail from the application detail):
 * back button 'Outputs'; tabs Model Inference (with a trained model), Pipeline (default), Results and
 * Visualization. While the output is Ongoing its live stream shows progress, logs and charts.
 */
export function OutputDetailPage() {
  const { appId, outputId } = useParams();
  const navigate = useNavigate();
  const id = Number(outputId);
  const [tab, setTab] = useState<OutputTab | null>(null);

  // Spec section 4: a failed load shows its message; an output that is not there goes to /error/404.
  const onLoadError = useCallback(
    (e: unknown) => {
      if (e instanceof ApiError && e.status === 404) {
        void navigate('/error/404', { replace: true });
        return null;
      }
      return e instanceof Error ? e.message : String(e);
    },
    [navigate],
  );
  useEffect(() => {
    if (!Number.isInteger(id) || id <= 0) void navigate('/error/404', { replace: true });
  }, [id, navigate]);
  const output = useLiveOutput(id, onLoadError);
  const { detail, live, ongoing } = output;
  const idFact = detail && (
    <>
      <dt>Output Id</dt>
      <dd>{detail.id}</dd>
    </>
  );

  return (
    <section className="page output-detail">
      <div className="detail-head">
        <button
          type="button"
          className="button secondary"
          onClick={() => void navigate(`/applications/${appId ?? detail?.application_id ?? ''}`)}
        >
          ← Outputs
        </button>
        <h1>{detail ? detail.name : 'Output'}</h1>
      </div>
      <OutputSummary
        output={output}
        facts={idFact}
        onDeleted={() => void navigate(`/applications/${appId ?? detail?.application_id ?? ''}`)}
      >
        {(found) => {
          const tabs = outputTabs(found);
          const selected: OutputTab = tab && tabs.tabs.includes(tab) ? tab : tabs.initial;
          return (
            <Tabs
              label="Output"
              idPrefix="output"
              tabs={tabs.tabs.map((t) => ({ id: TAB_IDS[t], title: t }))}
              selected={TAB_IDS[selected]}
              onSelect={(picked) => setTab(tabs.tabs.find((t) => TAB_IDS[t] === picked) ?? null)}
            >
              {selected === TABS.inference && <InferenceTab detail={found} />}
              {selected === TABS.pipeline && <PipelineTab detail={found} />}
              {selected === TABS.results && <ResultsTab detail={found} live={live} ongoing={ongoing} />}
              {selected === TABS.visualization && (
                <VisualizationTab detail={found} live={live} ongoing={ongoing} />
              )}
            </Tabs>
          );
        }}
      </OutputSummary>
    </section>
  );
}

function PipelineTab({ detail }: { detail: OutputDetail }) {
  const problem = browserRegistry().findProblem(detail.problem_id);
  if (!problem || !detail.app_data) return <p className="muted">No Data Available</p>;
  return (
    <div className="output-pipeline">
      <p className="muted">The application's pipeline as it was when this output ran.</p>
      <PipelineFlow problem={problem} appData={detail.app_data as AppData} />
    </div>
  );
}

function ResultsTab({ detail, live, ongoing }: { detail: OutputDetail; live: LiveState; ongoing: boolean }) {
  return (
    <div className="output-results">
      <h2>Result Logs</h2>
      <ResultLogs logs={outputView(detail, live, ongoing).logs} />
      <h2>Application Data</h2>
      <pre className="output-text" data-testid="application-data" tabIndex={0}>
        {detail.app_data ? JSON.stringify(detail.app_data, null, 2) : 'No Data Available'}
      </pre>
      {detail.run_record && (
        <>
          <h2>Run Record</h2>
          <pre className="output-text" data-testid="run-record" tabIndex={0}>
            {JSON.stringify(detail.run_record, null, 2)}
          </pre>
        </>
      )}
    </div>
  );
}

function VisualizationTab({
  detail,
  live,
  ongoing,
}: {
  detail: OutputDetail;
  live: LiveState;
  ongoing: boolean;
}) {
  const view = outputView(detail, live, ongoing);
  return (
    <div className="output-visualization">
      <DatasetNote dataset={detail.dataset} />
      {Object.keys(view.metrics).length + Object.keys(detail.baseline?.metrics ?? {}).length > 0 && (
        <MetricsTable
          metrics={view.metrics}
          baseline={detail.baseline}
          modelName={detail.trained_model_type}
          target={predictedColumn(detail.app_data)}
        />
      )}
      <RepeatsSummary detail={detail} />
      <OutputCharts
        charts={view.charts}
        ongoing={ongoing}
        name={detail.name}
        repeats={repeatsCurvesOf(detail.output_data)}
      />
    </div>
  );
}
