import { useState } from 'react';
import type { DemoOutput } from './api/get-demo-compare';
import { ConfusionHeatmap, LossChart, TrainingDataTable } from './demo-charts';
import { DemoNotice, RunNotice } from './demo-notice';
import { DemoSection } from './demo-section';
import { Tabs } from '../../components/tabs';
import { outputTitle } from './output-title';
import { defaultView, VIEWS, type View } from './plot-tabs';
import { ProblemPicker } from './problem-picker';
import { usePickedDemo } from './use-demo-compare';
import './demo-data.css';

function OutputView({ output, view, app }: { output: DemoOutput; view: View; app: string }) {
  const title = outputTitle(output);
  let body;
  if (output.status !== 'Completed') {
    body = <RunNotice output={output} app={app} />;
  } else if (view === 'training-data') {
    body =
      output.training_data && Object.keys(output.training_data).length > 0 ? (
        <TrainingDataTable facts={output.training_data} title={title} />
      ) : (
        <p className="muted">No Data Available</p>
      );
  } else if (view === 'losses') {
    body =
      output.losses && (output.losses.train?.length || output.losses.test?.length) ? (
        <LossChart train={output.losses.train} test={output.losses.test} title={title} />
      ) : (
        <p className="muted">No Training History</p>
      );
  } else {
    body = output.confusion_matrix?.length ? (
      <ConfusionHeatmap matrix={output.confusion_matrix} labels={output.confusion_labels} title={title} />
    ) : (
      <p className="muted">No Data Available</p>
    );
  }
  return (
    <div className="card demo-output">
      <h3>{title}</h3>
      {body}
    </div>
  );
}

/** The landing page's performance comparison: the server's own run of the picked example application. */
export function PerformanceComparison() {
  const { problems, problemId, problemName, pick, state } = usePickedDemo('comparison');
  // The picked tab belongs to its problem: another problem opens on its own default tab.
  const [picked, setPicked] = useState<{ problemId: string | null; view: View } | null>(null);
  const view = picked && picked.problemId === problemId ? picked.view : defaultView(problemId);
  return (
    <DemoSection
      id="performance-comparison"
      title="Performance Comparison"
      lead="The example applications trained on this server, from their real outputs."
    >
      <ProblemPicker id="comparison-problem" problems={problems} value={problemId} onChange={pick} />
      <Tabs
        label="Comparison views"
        idPrefix="comparison"
        tabs={VIEWS}
        selected={view}
        onSelect={(next) => setPicked({ problemId, view: next })}
      >
        <DemoNotice state={state} app={problemName} />
        {state.status === 'ready' && state.data.outputs.length > 0 && (
          <div className="demo-outputs">
            {state.data.outputs.map((output) => (
              <OutputView key={output.id} output={output} view={view} app={problemName} />
            ))}
          </div>
        )}
      </Tabs>
    </DemoSection>
  );
}
