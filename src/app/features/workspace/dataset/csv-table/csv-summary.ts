import Papa from 'papaparse';
import type { ParsedDataset } from '../../workspace-types';

/** Rows kept for the preview table (spec section 4; platform.json's previewTruncated says so). */
export const PREVIEW_ROWS = 30;
/** Bytes papaparse reads and parses at a time: bounded memory for a 100 MB file. */
const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * The CSV row rule (tests/contracts/csv-row-rule.json) as a streaming accumulator: the first row is the
 * header (BOM stripped); a row whose field count differs from the header's is dropped and counted; the
 * first PREVIEW_ROWS kept rows are kept for the preview. Blank lines never reach it (papaparse skips them).
 */
export function createCsvAccumulator() {
  let columns: string[] | null = null;
  let rowCount = 0;
  let droppedRows = 0;
  const preview: Array<Record<string, string>> = [];
  return {
    add(fields: string[]): void {
      if (!columns) {
        columns = fields.map((name, i) => (i === 0 ? name.replace(/^\uFEFF/, '') : name));
        return;
      }
      if (fields.length !== columns.length) {
        droppedRows += 1;
        return;
      }
      rowCount += 1;
      if (preview.length < PREVIEW_ROWS) {
        const header = columns;
        preview.push(Object.fromEntries(header.map((name, i) => [name, fields[i] ?? ''])));
      }
    },
    result(): ParsedDataset {
      return { columns: columns ?? [], rowCount, droppedRows, preview };
    },
  };
}

/**
 * Summarises a CSV (text or a Blob, read in chunks by papaparse) by the row rule. The same function runs
 * in the web worker (csv-parse.worker.ts) and, where there is no Worker (tests), on the main thread.
 */
export async function summarizeCsv(input: string | Blob): Promise<ParsedDataset> {
  // Papaparse reads a Blob with FileReader (page) or FileReaderSync (worker); Node has neither.
  const readable = typeof FileReader !== 'undefined' || 'FileReaderSync' in globalThis;
  return parseWith(typeof input !== 'string' && !readable ? await input.text() : input);
}

function parseWith(input: string | Blob): Promise<ParsedDataset> {
  const acc = createCsvAccumulator();
  return new Promise((resolve, reject) => {
    const config = {
      delimiter: ',',
      // true, not 'greedy': a row of only commas is a row of empty fields (the row rule's fixture).
      skipEmptyLines: true as const,
      // Chunks of rows, not one callback per row: about twice as fast on large files.
      chunkSize: CHUNK_BYTES,
      chunk: (chunk: Papa.ParseResult<string[]>) => {
        for (const row of chunk.data) acc.add(row);
      },
      complete: () => resolve(acc.result()),
      error: (error: Error) => reject(error),
    };
    if (typeof input === 'string') Papa.parse<string[]>(input, config);
    else Papa.parse<string[]>(input as File, config);
  });
}
