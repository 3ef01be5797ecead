import { cachedJson, type CachedReply } from '../cached-fetch';

/** One exported output as compare.json lists it (server/demo-data/demo-data-export.ts). */
export interface DemoOutput {
  id: number;
  name: string;
  status: string;
  created_at: string | null;
  completed_at: string | null;
  model_type: string | null;
  metrics: Record<string, number> | null;
  /** Rows the model was trained on, as the job reported them (a list of records). */
  training_data: Record<string, unknown>[] | null;
  losses: { train?: number[]; test?: number[] } | null;
  confusion_matrix: number[][] | null;
}

export interface DemoCompare {
  application: { id: number; app_name: string; problem_id: string };
  outputs: DemoOutput[];
}

/** GET /api/demo-data/{problemId}/compare through the 'application-output-compare-v1' cache. */
export async function getDemoCompare(problemId: string): Promise<CachedReply<{ data: DemoCompare }>> {
  return cachedJson(`/api/demo-data/${encodeURIComponent(problemId)}/compare`, 'compare');
}
