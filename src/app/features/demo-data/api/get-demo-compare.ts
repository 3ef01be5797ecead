import { cachedJson, type CachedReply } from '../cached-fetch';

/** One example run as the compare reply lists it (server/demo-data/demo-results-data.ts). */
export interface DemoOutput {
  id: number;
  name: string;
  /** queued, running, Completed, Failed or Manual Stop. */
  status: string;
  /** Why a run failed, in its own words; null otherwise. */
  error: string | null;
  created_at: string | null;
  completed_at: string | null;
  model_type: string | null;
  model: string | null;
  metrics: Record<string, number | null> | null;
  /** What the run trained on, as the worker reported it (rows, split, features...). */
  training_data: Record<string, unknown> | null;
  losses: { train?: number[]; test?: number[] } | null;
  confusion_matrix: number[][] | null;
  /** The matrix's class names, in row (and column) order; null when the run does not name them. */
  confusion_labels?: string[] | null;
  /** The analysis engine's report in Markdown, both registers; null until the run is Completed. */
  interpretation: { technical: string | null; non_technical: string | null } | null;
}

export interface DemoCompare {
  application: { id: number; app_name: string; problem_id: string };
  outputs: DemoOutput[];
}

/** GET /api/demo-data/{problemId}/compare through the 'application-output-compare-v1' cache. */
export async function getDemoCompare(problemId: string): Promise<CachedReply<{ data: DemoCompare }>> {
  return cachedJson(`/api/demo-data/${encodeURIComponent(problemId)}/compare`, 'compare');
}
