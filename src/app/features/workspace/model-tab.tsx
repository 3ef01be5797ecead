import type { AppData, EngineContext, FormState, Problem } from '../../../engine';
import { SchemaForm } from '../../../renderers';
import { useAuth } from '../../session/auth-context';
import { ResourceEstimatePanel } from './resource-estimate-panel';
import { useRealDevices } from './use-real-devices';

export interface ModelTabProps {
  problem: Problem;
  appData: AppData;
  context: EngineContext;
  state: FormState;
  onChange: (next: AppData) => void;
  /** Save Changes: the pruned app_data (the workspace keeps it and opens the Pipeline). */
  onSaved: (next: AppData) => void;
}

/**
 * Model Configurations (spec section 2): the problem's model sections ending with 'Save Changes'. The form
 * renderer says 'Wrong configurations.' when the problem has none, and opens the quantum device, noise
 * model and custom IBM token modals itself. Under the form: the resource estimate of the current values;
 * the device picker lists the IBM devices the account's stored token may use (issue #12), asked only when
 * the profile says a token is stored.
 */
export function ModelTab({ problem, appData, context, state, onChange, onSaved }: ModelTabProps) {
  const { user } = useAuth();
  const realDevices = useRealDevices(user?.has_custom_ibmq_token === true);
  return (
    <div className="workspace-card">
      <SchemaForm
        problem={problem}
        tab="model"
        appData={appData}
        context={context}
        state={state}
        onChange={onChange}
        idPrefix="workspace-model"
        submitLabel="Save Changes"
        onSubmit={onSaved}
        realDevices={realDevices}
      />
      <ResourceEstimatePanel problem={problem} appData={appData} context={context} />
    </div>
  );
}
