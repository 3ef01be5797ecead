import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { CsvFormulaEscape, escapeCsvField } from './csv-formula-escape';

/** The CSV after the escape, fed in chunks of `size` bytes (quotes and fields split anywhere). */
const escaped = (csv: string, size = 3) => {
  const bytes = Buffer.from(csv);
  const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_v, i) =>
    bytes.subarray(i * size, (i + 1) * size),
  );
  return text(Readable.from(chunks).pipe(new CsvFormulaEscape()));
};

describe('CSV formula escape', () => {
  it('turns cells starting with = + - @ tab or CR into quoted text with an apostrophe', () => {
    expect(escapeCsvField('=1+2')).toBe(`"'=1+2"`);
    expect(escapeCsvField('+cmd|calc')).toBe(`"'+cmd|calc"`);
    expect(escapeCsvField('-2+3')).toBe(`"'-2+3"`);
    expect(escapeCsvField('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(escapeCsvField('"=HYPERLINK(""http://x"",""y"")"')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(escapeCsvField('"\tx"')).toBe(`"'\tx"`);
  });

  it('keeps numbers, text and empty cells as they are', () => {
    for (const raw of ['-1.5', '+3e4', '42', '', 'Close', '"a, b"', '2024-01-02', '-.5']) {
      expect(escapeCsvField(raw), raw).toBe(raw);
    }
  });

  it('escapes a whole file streamed in small chunks, quotes and line ends intact', async () => {
    const csv =
      'Date,Close,Note\r\n2024-01-02,-1.5,"=cmd|\' /C calc\'!A0"\r\n2024-01-03,11,"say ""hi"", ok"\n2024-01-04,@x,\n';
    expect(await escaped(csv)).toBe(
      'Date,Close,Note\r\n2024-01-02,-1.5,"\'=cmd|\' /C calc\'!A0"\r\n2024-01-03,11,"say ""hi"", ok"\n2024-01-04,"\'@x",\n',
    );
    for (const size of [1, 2, 5, 64]) expect(await escaped(csv, size)).toBe(await escaped(csv, 3));
    expect(await escaped('a,=b')).toBe(`a,"'=b"`);
  });
});
