// CSV cells a spreadsheet would run as formulas ('=HYPERLINK(...)', '+cmd|...', '-2+3', '@SUM(...)',
// or a leading tab or carriage return) are escaped on download the way spreadsheet programs expect:
// the cell becomes text with a leading apostrophe ("'=1+2"), quoted. Plain numbers such as -1.5 or
// +3e4 are data, not formulas, and stay as they are. The stored file is never changed: a job reads
// the user's own bytes; only what a person opens in a spreadsheet is escaped.

import { StringDecoder } from 'node:string_decoder';
import { Transform, type TransformCallback } from 'node:stream';

const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The cell's value of a raw CSV field (quotes removed, doubled quotes undone). */
function valueOf(raw: string): string {
  return raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')
    ? raw.slice(1, -1).replace(/""/g, '"')
    : raw;
}

/** A raw CSV field as it is, or as quoted text with a leading apostrophe when it would run as a formula. */
export function escapeCsvField(raw: string): string {
  const value = valueOf(raw);
  if (!FORMULA_START.test(value) || NUMBER.test(value.trim())) return raw;
  return `"'${value.replace(/"/g, '""')}"`;
}

/**
 * Streams CSV text (comma-separated, RFC 4180 quoting, any line ends) with each field passed through
 * escapeCsvField. Holds one field at a time, so a large file streams.
 */
export class CsvFormulaEscape extends Transform {
  private readonly decoder = new StringDecoder('utf8');
  private field = '';
  private quoted = false;
  /** A quote was the last character inside a quoted field: the end of it, or the first of "". */
  private closing = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    done(null, this.scan(this.decoder.write(chunk)));
  }

  override _flush(done: TransformCallback): void {
    const rest = this.scan(this.decoder.end());
    done(null, rest + (this.field ? escapeCsvField(this.field) : ''));
  }

  private scan(text: string): string {
    let out = '';
    for (const ch of text) {
      if (this.quoted) {
        if (!this.closing) {
          this.field += ch;
          if (ch === '"') this.closing = true;
          continue;
        }
        this.closing = false;
        if (ch === '"') {
          this.field += ch; // "" inside quotes: one quote of the value
          continue;
        }
        this.quoted = false; // the quote before ended the field's quoted part
      }
      if (ch === ',' || ch === '\n' || ch === '\r') {
        out += escapeCsvField(this.field) + ch;
        this.field = '';
      } else {
        if (ch === '"' && this.field === '') this.quoted = true;
        this.field += ch;
      }
    }
    return out;
  }
}
