// How long the Dataset tab's CSV summary (the papaparse row rule the web worker runs) takes on a
// generated ~100 MB CSV, in Node with the very same function: `npm run bench:csv [megabytes]`.
import { performance } from 'node:perf_hooks';
import { summarizeCsv } from '../../src/app/features/workspace/dataset/csv-table/csv-summary';

const megabytes = Number(process.argv[2] ?? 100);
const header = 'Date,Open,High,Low,Close,Adj Close,Volume,Ticker\n';
const lines: string[] = [header];
let size = header.length;
for (let i = 0; size < megabytes * 1024 * 1024; i += 1) {
  const price = (100 + (i % 997) / 7).toFixed(4);
  // Every 10,000th row has a field too few: dropped and counted.
  const line =
    i % 10_000 === 9_999
      ? `2024-01-01,${price},${price}\n`
      : `2024-01-01,${price},${price},${price},${price},${price},${1_000_000 + i},AAPL\n`;
  lines.push(line);
  size += line.length;
}
const text = lines.join('');

const start = performance.now();
const parsed = await summarizeCsv(text);
const seconds = (performance.now() - start) / 1000;
const mb = text.length / (1024 * 1024);
console.log(
  `summarizeCsv: ${mb.toFixed(1)} MB, ${parsed.rowCount.toLocaleString('en-US')} rows kept, ` +
    `${parsed.droppedRows.toLocaleString('en-US')} dropped, ${parsed.columns.length} columns: ` +
    `${seconds.toFixed(2)} s (${(mb / seconds).toFixed(1)} MB/s)`,
);
