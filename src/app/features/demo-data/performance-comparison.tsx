import { useState } from 'react';
import type { DemoOutput } from './api/get-demo-compare';
import { ConfusionHeatmap, LossChart, TrainingDataTable } from './demo-charts';
import { DemoNotice } from './demo-notice';
import { DemoSection } from './demo-section';
import { Tabs } from '../../components/tabs';
import { outputTitle } from './output-title';
import { ProblemPicker } from './problem-picker';
import { usePickedDemo } from './use-demo-compare';
import './demo-data.css';

type View = 'training-data' | 'losses' | 'confusion';
const VIEWS = [
  { id: 'training-data', title: 'Training Data' },
  { id: 'losses', title: 'Training and Test Losses' },
  { id: 'confusion', title: 'Confusion Matrix' },
] as const;

function OutputView({ output, view }: { output: DemoOutput; view: View }) {
  const title = outputTitle(output);
  let body;
  if (view === 'training-data') {
    body = output.training_data?.length ? (
      <TrainingDataTable rows={output.training_data} title={title} />
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
      <ConfusionHeatmap matrix={output.confusion_matrix} title={title} />
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

/** The landing page's performance comparison: outputs of the example applications side by side. */
export function PerformanceComparison() {
  const { problems, problemId, pick, state } = usePickedDemo();
  const [view, setView] = useState<View>('confusion');
  return (
    <DemoSection
      id="performance-comparison"
      title="Performance Comparison"
      lead="Classical and quantum models trained on the same example application, side by side."
    >
      <ProblemPicker id="comparison-problem" problems={problems} value={problemId} onChange={pick} />
      <Tabs label="Comparison views" idPrefix="comparison" tabs={VIEWS} selected={view} onSelect={setView}>
        <DemoNotice state={state} what="The performance comparison" />
        {state.status === 'ready' && state.data.outputs.length > 0 && (
          <div className="demo-outputs">
            {state.data.outputs.map((output) => (
              <OutputView key={output.id} output={output} view={view} />
            ))}
          </div>
        )}
      </Tabs>
    </DemoSection>
  );
}
