import type { ParsedDataset } from '../../workspace-types';
import { summarizeCsv } from './csv-summary';

type WorkerReply = { ok: true; parsed: ParsedDataset } | { ok: false; message: string };

/** Parses a CSV in a module web worker; on the main thread where there is no Worker (jsdom tests). */
export function parseCsv(input: Blob | string): Promise<ParsedDataset> {
  if (typeof Worker === 'undefined') return summarizeOnMainThread(input);
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./csv-parse.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      worker.terminate();
      if (event.data.ok) resolve(event.data.parsed);
      else reject(new Error(event.data.message));
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(event.message || 'The CSV could not be read.'));
    };
    worker.postMessage(input);
  });
}

/** Without a Worker (jsdom): the same summary; a Blob read as text first where it can be (fetch's Blob). */
async function summarizeOnMainThread(input: Blob | string): Promise<ParsedDataset> {
  if (typeof input !== 'string' && typeof input.text === 'function') return summarizeCsv(await input.text());
  return summarizeCsv(input);
}
