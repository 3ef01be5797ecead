// The workspace's pure rules (spec workspace.md sections 2, 4, 8, 9): which tab opens, which tabs carry a
// marker, the texts it shows, and the dataset facts the engine context takes. No React here.

import type { EngineContext, PipelineStatus, Problem, TabDef } from '../../../engine';
import { ApiError } from '../../api/client';
import type { ParsedDataset } from './workspace-types';

/** Tab indexes (spec section 2: 0 Dataset, 1 Model Configurations, 2 Pipeline, 3 Outputs). */
export const TAB = { dataset: 0, model: 1, pipeline: 2, outputs: 3 } as const;
/** Spec section 9: the blocked-pipeline warning shows for 2 to 3 seconds. */
export const BLOCKED_WARNING_MS = 2500;

export const SAVE_OK = 'Application is saved successfully!';
export const SAVE_FAILED = 'Failed to save the application!';
export const LOGIN_TO_SAVE = 'Please login to save the application!';
export const LEAVE_PROMPT = 'Be sure to save application before leaving. Are you sure you want to leave?';
export const RUNNING_BANNER = 'Application is running. Click on this to check the output for details.';
export const GO_TO_OUTPUTS = 'Go to output tab';

/** The workspace tabs in index order, as platform.json declares them (labels included). */
export function workspaceTabs(problem: Problem): TabDef[] {
  return [...problem.platform.tabs].sort((a, b) => a.index - b.index);
}

export type TabGate = { open: true } | { open: false; warning: string };

/**
 * Spec sections 2 and 4: Dataset, Model Configurations and Outputs always open; Pipeline opens only while
 * the pipeline is valid, otherwise the engine's blocked message is shown instead.
 */
export function tabGate(index: number, pipeline: PipelineStatus): TabGate {
  if (index !== TAB.pipeline || pipeline.valid) return { open: true };
  return { open: false, warning: pipeline.blockedMessage ?? '' };
}

/** Tab ids that carry the red marker: the engine's incomplete tabs (Dataset, Model Configurations). */
export function incompleteTabs(pipeline: PipelineStatus): Set<string> {
  return new Set(pipeline.tabs.filter((tab) => !tab.valid).map((tab) => tab.id));
}

/** Spec section 8: 'Failed to save the application! {message}', the message being the server's own words. */
export function saveFailureText(error: unknown): string {
  if (error instanceof ApiError) {
    const body = error.body as { detail?: unknown } | null;
    const detail = body && typeof body.detail === 'string' ? body.detail : error.message;
    return `${SAVE_FAILED} ${detail}`;
  }
  return `${SAVE_FAILED} ${error instanceof Error ? error.message : String(error)}`;
}

/** What the engine context takes from the parsed dataset: its row count and columns (none before parsing). */
export type DatasetFacts = Pick<EngineContext, 'rowCount' | 'columns'>;

export function datasetFacts(parsed: ParsedDataset | null): DatasetFacts {
  return parsed ? { rowCount: parsed.rowCount, columns: parsed.columns } : {};
}

export function sameFacts(a: DatasetFacts, b: DatasetFacts): boolean {
  return a.rowCount === b.rowCount && (a.columns ?? []).join('\u0000') === (b.columns ?? []).join('\u0000');
}
