// Checks a dataset by its content, in one pass as the bytes arrive (an upload or a URL fetch): UTF-8
// text, not binary, not empty, a header row naming the columns, at most the size limit. It counts the
// data rows by the one CSV row rule the browser and the worker share (tests/contracts/csv-row-rule.json:
// blank lines skipped, a row whose field count differs from the header's dropped and counted) and
// hashes the bytes, so the stored row (server/datasets/datasets-repository.ts) needs no second read.

import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DatasetRefusal, formatMegabytes } from './dataset-refusal';

export interface CsvFacts {
  /** Kept data rows: the header not counted, blank lines skipped, dropped rows not counted. */
  rows: number;
  /** Data rows dropped because their field count differs from the header's. */
  droppedRows: number;
  /** The header's column names, in file order. */
  columns: string[];
  sizeBytes: number;
  sha256: string;
}

/** Longest header row the inspector reads (a "header" longer than this is not one). */
const MAX_HEADER_BYTES = 1024 * 1024;

/** Binary formats people send instead of a CSV, by their first bytes, named for the message. */
const SIGNATURES: { bytes: number[]; name: string }[] = [
  { bytes: [0x50, 0x4b, 0x03, 0x04], name: 'a ZIP archive (an Excel .xlsx workbook is one)' },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], name: 'an Excel .xls workbook (or another Office file)' },
  { bytes: [0x25, 0x50, 0x44, 0x46], name: 'a PDF document' },
  { bytes: [0x89, 0x50, 0x4e, 0x47], name: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], name: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], name: 'a GIF image' },
  { bytes: [0x1f, 0x8b], name: 'a gzip archive' },
  { bytes: [0x50, 0x41, 0x52, 0x31], name: 'a Parquet file' },
  { bytes: [0x4d, 0x41, 0x54, 0x4c, 0x41, 0x42], name: 'a MATLAB .mat file' },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], name: 'a program (ELF)' },
  { bytes: [0x4d, 0x5a], name: 'a program (EXE)' },
];

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export const CSV_MESSAGES = {
  empty: 'The file is empty.',
  notUtf8: 'The file is not UTF-8 text: save it as "CSV UTF-8" and upload it again.',
  utf16: 'The file is UTF-16 text, not UTF-8: save it as "CSV UTF-8" and upload it again.',
  binary: (what: string) => `The file is ${what}, not CSV text.`,
  tooLarge: (limit: number) => `The file is larger than the limit of ${formatMegabytes(limit)}.`,
  noHeader: 'The file has no header row: its first row must name the columns.',
  numericHeader:
    'The file has no header row: its first row holds only numbers; add a first row that names the columns.',
  emptyColumnName: (position: number) =>
    `The header row has no name for column ${position}: every column needs a name.`,
  duplicateColumn: (name: string) => `The header row names the column "${name}" twice.`,
  noRows: 'The file has a header row but no data rows.',
  noKeptRows: (dropped: number, columns: number) =>
    `No data row has the header's ${columns} values: all ${dropped} rows were dropped.`,
  openQuote: 'The file ends inside a quoted value: a " is not closed.',
  headerTooLong: 'The first row is longer than 1 MB: the file has no header row (or is not CSV).',
} as const;

const Q = 0x22; // "
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The incremental inspector: push() each chunk, then finish(). Both throw DatasetRefusal with a
 * plain detail (the upload route puts 'Error uploading file. ' before it).
 */
export class CsvInspector {
  private readonly hash: Hash = createHash('sha256');
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private size = 0;
  private sniffed = false;
  private head = Buffer.alloc(0);
  // Parser state (RFC 4180: quoted fields may hold commas, quotes as "" and line breaks).
  private inQuotes = false;
  private quoteJustClosed = false;
  private afterCr = false;
  private fieldsInRecord = 0;
  private recordHasContent = false;
  private header: string[] | null = null;
  private headerBytes = 0;
  /** The bytes of the header field being read (data rows' values are not kept). */
  private field: number[] = [];
  private dataRows = 0;
  private droppedRows = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) throw new DatasetRefusal(CSV_MESSAGES.tooLarge(this.maxBytes), 413);
    this.hash.update(chunk);
    if (!this.sniffed) {
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < 8) return;
      chunk = this.head;
      this.sniff(chunk);
    }
    this.scan(chunk);
  }

  finish(): CsvFacts {
    if (!this.sniffed) {
      const head = this.head;
      if (head.length === 0) throw new DatasetRefusal(CSV_MESSAGES.empty);
      this.sniff(head);
      this.scan(head);
    }
    try {
      this.decoder.decode(); // a UTF-8 sequence cut off at the end
    } catch {
      throw new DatasetRefusal(CSV_MESSAGES.notUtf8);
    }
    if (this.inQuotes) throw new DatasetRefusal(CSV_MESSAGES.openQuote);
    this.endRecord();
    if (this.header === null) throw new DatasetRefusal(CSV_MESSAGES.empty);
    if (this.dataRows === 0) {
      throw new DatasetRefusal(
        this.droppedRows > 0
          ? CSV_MESSAGES.noKeptRows(this.droppedRows, this.header.length)
          : CSV_MESSAGES.noRows,
      );
    }
    return {
      rows: this.dataRows,
      droppedRows: this.droppedRows,
      columns: this.header,
      sizeBytes: this.size,
      sha256: this.hash.digest('hex'),
    };
  }

  private sniff(head: Buffer): void {
    this.sniffed = true;
    this.head = Buffer.alloc(0);
    if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
      throw new DatasetRefusal(CSV_MESSAGES.utf16);
    }
    for (const { bytes, name } of SIGNATURES) {
      if (bytes.every((b, i) => head[i] === b)) throw new DatasetRefusal(CSV_MESSAGES.binary(name));
    }
  }

  /**
   * Checks and parses one chunk. The parser works on bytes: the CSV syntax (quote, comma, line
   * breaks) is ASCII, and ASCII bytes never occur inside a UTF-8 sequence; the decoder only checks
   * the encoding. Only the header's bytes are kept (decoded once the header row ends).
   */
  private scan(chunk: Buffer): void {
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      throw new DatasetRefusal(CSV_MESSAGES.notUtf8);
    }
    let inQuotes = this.inQuotes;
    let quoteJustClosed = this.quoteJustClosed;
    let afterCr = this.afterCr;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      // Control bytes other than tab, line feed, form feed and carriage return mean binary data.
      if (b < 0x20 && b !== 0x09 && b !== LF && b !== 0x0c && b !== CR) {
        throw new DatasetRefusal(CSV_MESSAGES.binary('binary data'));
      }
      if (afterCr) {
        afterCr = false;
        if (b === LF) continue; // CRLF is one line break
      }
      if (inQuotes) {
        if (b === Q) {
          inQuotes = false;
          quoteJustClosed = true;
        } else if (this.header === null) this.addByte(b);
        continue;
      }
      if (b === Q) {
        // "" inside a quoted field is one quote; a quote opening a field starts quoting.
        if (quoteJustClosed && this.header === null) this.addByte(Q);
        inQuotes = true;
        quoteJustClosed = false;
        this.recordHasContent = true;
        continue;
      }
      quoteJustClosed = false;
      if (b === COMMA) {
        this.recordHasContent = true;
        this.endField();
      } else if (b === LF || b === CR) {
        afterCr = b === CR;
        this.endRecord();
      } else {
        this.recordHasContent = true;
        if (this.header === null) this.addByte(b);
      }
    }
    this.inQuotes = inQuotes;
    this.quoteJustClosed = quoteJustClosed;
    this.afterCr = afterCr;
  }

  private addByte(b: number): void {
    if (this.field.length >= MAX_HEADER_BYTES) throw new DatasetRefusal(CSV_MESSAGES.headerTooLong);
    this.field.push(b);
  }

  private pendingHeader: string[] = [];

  private endField(): void {
    this.fieldsInRecord++;
    if (this.header === null) {
      this.headerBytes += this.field.length;
      if (this.headerBytes > MAX_HEADER_BYTES) throw new DatasetRefusal(CSV_MESSAGES.headerTooLong);
      this.pendingHeader.push(Buffer.from(this.field).toString('utf8'));
      this.field = [];
    }
  }

  private endRecord(): void {
    if (!this.recordHasContent) {
      // A blank line (no characters at all) is skipped.
      this.field = [];
      this.fieldsInRecord = 0;
      return;
    }
    this.endField();
    if (this.header === null) {
      this.header = this.checkHeader(this.pendingHeader);
      this.pendingHeader = [];
    } else if (this.fieldsInRecord === this.header.length) {
      this.dataRows++;
    } else {
      // The shared row rule: a ragged row is dropped (and counted), not a reason to refuse the file.
      this.droppedRows++;
    }
    this.fieldsInRecord = 0;
    this.recordHasContent = false;
  }

  private checkHeader(fields: string[]): string[] {
    const columns = fields.map((f, i) => (i === 0 ? f.replace(/^\uFEFF/, '') : f));
    if (columns.every((c) => c.trim() === '')) throw new DatasetRefusal(CSV_MESSAGES.noHeader);
    if (columns.every((c) => NUMBER.test(c.trim()))) throw new DatasetRefusal(CSV_MESSAGES.numericHeader);
    const seen = new Set<string>();
    columns.forEach((c, i) => {
      if (c.trim() === '') throw new DatasetRefusal(CSV_MESSAGES.emptyColumnName(i + 1));
      if (seen.has(c)) throw new DatasetRefusal(CSV_MESSAGES.duplicateColumn(c));
      seen.add(c);
    });
    return columns;
  }
}

/** A pass-through stream that inspects what flows through it; `facts()` after the end. */
export class InspectingStream extends Transform {
  private readonly inspector: CsvInspector;
  private result: CsvFacts | null = null;

  constructor(maxBytes: number) {
    super();
    this.inspector = new CsvInspector(maxBytes);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      this.inspector.push(chunk);
      done(null, chunk);
    } catch (error) {
      done(error as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      this.result = this.inspector.finish();
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  facts(): CsvFacts {
    if (!this.result) throw new Error('the stream has not ended');
    return this.result;
  }
}

/** Inspects a file already on disk (a shipped sample, a cached URL dataset). */
export async function inspectCsvFile(file: string, maxBytes = Number.MAX_SAFE_INTEGER): Promise<CsvFacts> {
  const inspector = new CsvInspector(maxBytes);
  await pipeline(createReadStream(file), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) inspector.push(chunk);
  });
  return inspector.finish();
}
