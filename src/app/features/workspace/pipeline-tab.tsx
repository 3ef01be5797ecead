import type { AppData, EngineContext, FormState, Problem } from '../../../engine';
import { PipelineFlow, PipelineValidityNotice } from '../../../renderers';

export interface PipelineTabProps {
  problem: Problem;
  appData: AppData;
  context: EngineContext;
  state: FormState;
  /** 'Fill missing at {n}': opens that tab (0 Dataset, 1 Model Configurations). */
  onOpenTab: (index: number) => void;
}

/** Pipeline (spec section 2): the validity notice and the React Flow diagram (which says 'Pipeline is Read Only'). */
export function PipelineTab({ problem, appData, context, state, onOpenTab }: PipelineTabProps) {
  return (
    <div className="workspace-card workspace-pipeline">
      <PipelineValidityNotice
        status={state.pipeline}
        onFillMissing={(target) => onOpenTab(target.tabIndex)}
      />
      <PipelineFlow problem={problem} appData={appData} context={context} validation={state} />
    </div>
  );
}

export default PipelineTab;
