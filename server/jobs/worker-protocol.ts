/**
 * The worker protocol: a worker process writes one JSON object per line on stdout.
 * The same shapes are pinned by tests/contracts/worker-protocol.schema.json, read by both the
 * TypeScript and the Python tests.
 */
export type WorkerLine =
  | { type: 'progress'; percent: number; stage?: string }
  | { type: 'log'; level: 'info' | 'warning' | 'error'; message: string }
  | { type: 'metric'; name: string; value: number; step?: number | null }
  | { type: 'chart'; chart: ChartSpec }
  | { type: 'artifact'; name: string; path: string; media_type?: string }
  | { type: 'result'; data: Record<string, unknown> }
  | { type: 'error'; message: string; kind?: 'validation' | 'runtime' };

export interface ChartSpec {
  type: 'line' | 'bar' | 'heatmap' | 'confusion_matrix';
  title: string;
  label?: string;
  series: { name: string; data: unknown[] }[];
  categories?: unknown[];
}

const LINE_TYPES = new Set(['progress', 'log', 'metric', 'chart', 'artifact', 'result', 'error']);

/** Parses one stdout line; anything that is not a protocol object becomes null (logged by the caller). */
export function parseWorkerLine(line: string): WorkerLine | null {
  const text = line.trim();
  if (!text.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const type = (value as { type?: unknown }).type;
    if (typeof type !== 'string' || !LINE_TYPES.has(type)) return null;
    return value as WorkerLine;
  } catch {
    return null;
  }
}
