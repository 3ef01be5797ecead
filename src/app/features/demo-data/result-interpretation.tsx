import { useState } from 'react';
import { DemoNotice } from './demo-notice';
import { DemoSection } from './demo-section';
import { metricRows, plainLines, verdict } from './interpretation';
import { outputTitle } from './output-title';
import { ProblemPicker } from './problem-picker';
import { usePickedDemo } from './use-demo-compare';
import './demo-data.css';

type Audience = 'technical' | 'non-technical';

/** The landing page's result interpretation: the same exported outputs, technical or in plain words. */
export function ResultInterpretation() {
  const { problems, problemId, pick, state } = usePickedDemo();
  const [audience, setAudience] = useState<Audience>('non-technical');
  const outputs = state.status === 'ready' ? state.data.outputs : [];
  const summary = verdict(outputs);
  return (
    <DemoSection
      id="result-interpretation"
      title="Result Interpretation"
      lead="What the example applications' results mean, for specialists and for everyone else."
    >
      <div className="demo-controls">
        <ProblemPicker id="interpretation-problem" problems={problems} value={problemId} onChange={pick} />
        <div className="demo-toggle" role="group" aria-label="Explanation">
          {(['technical', 'non-technical'] as const).map((each) => (
            <button
              key={each}
              type="button"
              className={`button ${audience === each ? 'primary' : 'secondary'}`}
              aria-pressed={audience === each}
              onClick={() => setAudience(each)}
            >
              {each === 'technical' ? 'Technical' : 'Non-technical'}
            </button>
          ))}
        </div>
      </div>
      <DemoNotice state={state} what="The result interpretation" />
      {outputs.length > 0 && (
        <div className="demo-outputs">
          {outputs.map((output) => (
            <div key={output.id} className="card demo-output">
              <h3>{outputTitle(output)}</h3>
              {audience === 'technical' ? (
                metricRows(output).length > 0 ? (
                  <dl className="demo-metrics">
                    {metricRows(output).map(([name, value]) => (
                      <div key={name}>
                        <dt>{name}</dt>
                        <dd>{value}</dd>
                      </div>
                    ))}
                  </dl>
                ) : (
                  <p className="muted">No Data Available</p>
                )
              ) : (
                plainLines(output).map((line) => <p key={line}>{line}</p>)
              )}
            </div>
          ))}
        </div>
      )}
      {audience === 'non-technical' && summary && <p className="demo-verdict">{summary}</p>}
    </DemoSection>
  );
}
