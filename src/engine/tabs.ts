// Tab validity (Dataset, Model Configurations) and pipeline validity.

import { formsOfTab } from './forms';
import { errorsUnder, validateAppData } from './validate';
import type { AppData, EngineContext, FieldError, Problem, TabId, ValidationResult } from './types';

export interface TabStatus {
  id: TabId;
  label: string;
  /** Workspace tab index (0 Dataset, 1 Model Configurations). */
  index: number;
  /** Step number used by "Fill missing at {step}" (1 dataset, 2 model configuration). */
  step: number;
  valid: boolean;
  errors: FieldError[];
}

export interface PipelineStatus {
  valid: boolean;
  tabs: TabStatus[];
  /** "Please fill in the missing information to make the pipeline valid." when invalid. */
  message?: string;
  /** The button that jumps to the first incomplete tab. */
  fillMissing?: { label: string; tab: TabId; tabIndex: number; step: number };
  /** Warning shown when the Pipeline tab is opened too early. */
  blockedMessage?: string;
}

/** Status of the Dataset and Model Configurations tabs (only tabs the problem has forms for). */
export function getTabStatuses(
  problem: Problem,
  appData: AppData,
  context: EngineContext = {},
  validation: ValidationResult = validateAppData(problem, appData, context),
): TabStatus[] {
  const out: TabStatus[] = [];
  for (const tab of problem.platform.tabs) {
    if (tab.id !== 'dataset' && tab.id !== 'model') continue;
    const forms = formsOfTab(problem, tab.id);
    if (forms.length === 0) continue;
    const errors = forms.flatMap((f) => errorsUnder(validation.errors, `/${f}`));
    out.push({
      id: tab.id,
      label: tab.label,
      index: tab.index,
      step: tab.step ?? tab.index + 1,
      valid: errors.length === 0,
      errors,
    });
  }
  return out;
}

/**
 * The pipeline is valid when every tab is. Otherwise it names the first incomplete tab:
 * "Fill missing at 1" (dataset) or "Fill missing at 2" (model configuration).
 */
export function getPipelineStatus(
  problem: Problem,
  appData: AppData,
  context: EngineContext = {},
  validation: ValidationResult = validateAppData(problem, appData, context),
): PipelineStatus {
  const tabs = getTabStatuses(problem, appData, context, validation);
  const first = tabs.find((t) => !t.valid);
  if (!first) return { valid: true, tabs };
  const { messages } = problem.platform;
  return {
    valid: false,
    tabs,
    message: messages.pipelineInvalid,
    fillMissing: {
      label: messages.fillMissingAt.replace('{step}', String(first.step)),
      tab: first.id,
      tabIndex: first.index,
      step: first.step,
    },
    blockedMessage: messages.pipelineBlocked,
  };
}
