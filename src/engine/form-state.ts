// One call that gives a renderer everything for the current app_data: validation, sections of
// both tabs with their errors, tab and pipeline status.

import { getTabSections, type SectionView } from './forms';
import { getPipelineStatus, type PipelineStatus } from './tabs';
import { errorsByPath, validateAppData } from './validate';
import type { AppData, EngineContext, FieldError, Problem, TabId } from './types';

export interface FormState {
  valid: boolean;
  errors: FieldError[];
  /** First message per app_data path. */
  errorsByPath: Record<string, string>;
  sections: Record<TabId, SectionView[]>;
  pipeline: PipelineStatus;
}

export function getFormState(problem: Problem, appData: AppData, context: EngineContext = {}): FormState {
  const validation = validateAppData(problem, appData, context);
  return {
    valid: validation.valid,
    errors: validation.errors,
    errorsByPath: errorsByPath(validation.errors),
    sections: {
      dataset: getTabSections(problem, 'dataset', appData, context, validation.errors),
      model: getTabSections(problem, 'model', appData, context, validation.errors),
    },
    pipeline: getPipelineStatus(problem, appData, context, validation),
  };
}
