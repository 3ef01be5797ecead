import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SAMPLES_DIR, loadSampleManifest } from '../../src/engine/node/load-sample-manifest';
import { CSV_MESSAGES, CsvInspector, inspectCsvFile } from './csv-inspection';
import { DatasetRefusal, formatMegabytes } from './dataset-refusal';

const ROW_RULE_FIXTURE = new URL('../../tests/contracts/csv-row-rule.json', import.meta.url);

/** Inspects bytes pushed in chunks of `size` (so values, quotes and UTF-8 sequences split across chunks). */
function inspect(bytes: Buffer | string, options: { max?: number; chunk?: number } = {}) {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  const inspector = new CsvInspector(options.max ?? 1024 * 1024);
  const size = options.chunk ?? data.length;
  for (let i = 0; i < data.length; i += size) inspector.push(data.subarray(i, i + size));
  return inspector.finish();
}

const refusal = (bytes: Buffer | string, options: { max?: number; chunk?: number } = {}) => {
  try {
    inspect(bytes, options);
  } catch (error) {
    expect(error).toBeInstanceOf(DatasetRefusal);
    return error as DatasetRefusal;
  }
  throw new Error('expected a refusal');
};

describe('CSV inspection', () => {
  it('agrees with the manifest on every shipped sample: rows, columns and sha256', async () => {
    for (const sample of loadSampleManifest().samples) {
      const facts = await inspectCsvFile(path.join(DEFAULT_SAMPLES_DIR, sample.file));
      expect(facts.rows, sample.file).toBe(sample.rows);
      expect(facts.columns, sample.file).toEqual(sample.columns);
      expect(facts.sha256, sample.file).toBe(sample.sha256);
    }
  });

  it('counts data rows without the header, with CRLF, quoted commas, quotes and line breaks in values', () => {
    const text =
      '\uFEFFName,"Note, long",Value\r\n' +
      'a,"said ""hi""",1\r\n' +
      '\r\n' + // a blank line is skipped
      'b,"two\nlines",2\r\n' +
      'c,,3'; // no final line break
    for (const chunk of [1, 2, 3, 7, 1000]) {
      const facts = inspect(text, { chunk });
      expect(facts.columns, `chunk ${chunk}`).toEqual(['Name', 'Note, long', 'Value']);
      expect(facts.rows, `chunk ${chunk}`).toBe(3);
      expect(facts.sizeBytes).toBe(Buffer.byteLength(text));
      expect(facts.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });

  it('takes UTF-8 split across chunks and drops a row with fewer values than columns', () => {
    const facts = inspect('Stadt,Größe\nMünchen,1\nKöln\n', { chunk: 1 });
    expect(facts.columns).toEqual(['Stadt', 'Größe']);
    expect(facts.rows).toBe(1);
    expect(facts.droppedRows).toBe(1);
  });

  // The twin of worker/tests/unit/test_csv_rows.py and the browser parser's test: one fixture, one rule.
  it('follows the shared CSV row rule on every case of tests/contracts/csv-row-rule.json', () => {
    const fixture = JSON.parse(readFileSync(ROW_RULE_FIXTURE, 'utf8')) as {
      cases: { name: string; csv: string; columns: string[]; rows: number; dropped: number }[];
    };
    expect(fixture.cases.length).toBeGreaterThanOrEqual(8);
    for (const c of fixture.cases) {
      for (const chunk of [1, 3, 1 << 20]) {
        const facts = inspect(c.csv, { chunk });
        const label = `${c.name} (chunk ${chunk})`;
        expect(facts.columns, label).toEqual(c.columns);
        expect(facts.rows, label).toBe(c.rows);
        expect(facts.droppedRows, label).toBe(c.dropped);
      }
    }
  });

  it('refuses an empty file, blank lines only, and a header without data rows', () => {
    expect(refusal('').message).toBe(CSV_MESSAGES.empty);
    expect(refusal('\n\r\n\n').message).toBe(CSV_MESSAGES.empty);
    expect(refusal('a,b,c\n').message).toBe(CSV_MESSAGES.noRows);
    expect(refusal('a,b,c').message).toBe(CSV_MESSAGES.noRows);
  });

  it('refuses a file whose first row is data, not column names', () => {
    expect(refusal('1,2.5,-3e4\n4,5,6\n').message).toBe(CSV_MESSAGES.numericHeader);
    expect(refusal(',,\n1,2,3\n').message).toBe(CSV_MESSAGES.noHeader);
    expect(refusal('a,,c\n1,2,3\n').message).toBe(CSV_MESSAGES.emptyColumnName(2));
    expect(refusal('a,b,a\n1,2,3\n').message).toBe('The header row names the column "a" twice.');
  });

  it('names binary formats by their content, whatever the file is called', () => {
    const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00]);
    expect(refusal(zip).message).toBe(
      'The file is a ZIP archive (an Excel .xlsx workbook is one), not CSV text.',
    );
    expect(refusal(Buffer.from('%PDF-1.7\n%\xe2\xe3\n', 'latin1')).message).toBe(
      'The file is a PDF document, not CSV text.',
    );
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(refusal(png, { chunk: 3 }).message).toBe('The file is a PNG image, not CSV text.');
    expect(refusal(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])).message).toBe(
      'The file is a gzip archive, not CSV text.',
    );
    // Text that holds NUL or other control bytes is binary data.
    expect(refusal(Buffer.from('a,b\n1,\u0000\n', 'utf8')).message).toBe(CSV_MESSAGES.binary('binary data'));
  });

  it('refuses text that is not UTF-8 (Latin-1, UTF-16)', () => {
    expect(refusal(Buffer.from('Stadt,Größe\nKöln,1\n', 'latin1')).message).toBe(CSV_MESSAGES.notUtf8);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\n1,2\n', 'utf16le')]);
    expect(refusal(utf16).message).toBe(CSV_MESSAGES.utf16);
    // A sequence cut off at the very end of the file.
    expect(refusal(Buffer.concat([Buffer.from('a,b\n1,'), Buffer.from([0xc3])])).message).toBe(
      CSV_MESSAGES.notUtf8,
    );
  });

  it('refuses a file over the limit as soon as it passes it (413), naming the limit', () => {
    const row = 'x,y\n';
    const text = 'a,b\n' + row.repeat(600); // 2,404 bytes
    const error = refusal(text, { max: 2048, chunk: 100 });
    expect(error.status).toBe(413);
    expect(error.message).toBe('The file is larger than the limit of 2 KB.');
    expect(inspect(text, { max: Buffer.byteLength(text) }).rows).toBe(600); // exactly at the limit
    expect(CSV_MESSAGES.tooLarge(100 * 1024 * 1024)).toBe('The file is larger than the limit of 100 MB.');
  });

  it('refuses a file whose every data row is dropped, and an unclosed quote', () => {
    expect(refusal('a,b\n1,2,3\n4\n').message).toBe(
      "No data row has the header's 2 values: all 2 rows were dropped.",
    );
    expect(refusal('a,b\n1,"2\n').message).toBe(CSV_MESSAGES.openQuote);
  });

  it('reads quoted column names and refuses a first row longer than 1 MB', () => {
    expect(inspect('"a ""q""","b,c"\n1,2\n', { chunk: 2 }).columns).toEqual(['a "q"', 'b,c']);
    const long = 'x'.repeat(1024 * 1024 + 10);
    expect(refusal(long, { max: 4 * 1024 * 1024, chunk: 65536 }).message).toBe(CSV_MESSAGES.headerTooLong);
  });

  it('formats sizes for messages', () => {
    expect(formatMegabytes(100 * 1024 * 1024)).toBe('100 MB');
    expect(formatMegabytes(1024 ** 3)).toBe('1024 MB');
    expect(formatMegabytes(1.5 * 1024 * 1024)).toBe('1.5 MB');
    expect(formatMegabytes(4096)).toBe('4 KB');
  });

  it('reads a file as the stream does', async () => {
    const file = path.join(DEFAULT_SAMPLES_DIR, 'product_demand.csv');
    const facts = await inspectCsvFile(file);
    expect(facts.sizeBytes).toBe(readFileSync(file).length);
  });
});
