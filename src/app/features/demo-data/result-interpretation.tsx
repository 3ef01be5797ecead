import { useState } from 'react';
import { DemoNotice, RunNotice } from './demo-notice';
import { DemoSection } from './demo-section';
import { MarkdownText } from './markdown-text';
import { outputTitle } from './output-title';
import { ProblemPicker } from './problem-picker';
import { usePickedDemo } from './use-demo-compare';
import './demo-data.css';

type Audience = 'technical' | 'non-technical';

/**
 * The landing page's result interpretation: the analysis engine's report of the example's run, in
 * technical or plain words (every number in it comes from the run's facts).
 */
export function ResultInterpretation() {
  const { problems, problemId, problemName, pick, state } = usePickedDemo('interpretation');
  const [audience, setAudience] = useState<Audience>('non-technical');
  const outputs = state.status === 'ready' ? state.data.outputs : [];
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
      <DemoNotice state={state} app={problemName} />
      {outputs.length > 0 && (
        <div className="demo-outputs">
          {outputs.map((output) => {
            const text =
              audience === 'technical'
                ? output.interpretation?.technical
                : output.interpretation?.non_technical;
            return (
              <div key={output.id} className="card demo-output" data-testid="interpretation">
                <h3>{outputTitle(output)}</h3>
                {output.status !== 'Completed' ? (
                  <RunNotice output={output} app={problemName} />
                ) : text ? (
                  <MarkdownText markdown={text} />
                ) : (
                  <p className="muted">No Data Available</p>
                )}
              </div>
            );
          })}
        </div>
      )}
    </DemoSection>
  );
}
