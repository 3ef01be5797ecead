// A .mat upload's checks as its bytes arrive (mat-upload.ts, mat-inspection.ts): the header decides the
// format, anything else is refused in the spec's words, the size limit holds, the bytes are hashed.

import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { DatasetRefusal } from './dataset-refusal';
import { MAT_MESSAGES, sniffMatFormat } from './mat-inspection';
import { isMatUploadName, MatCheckStream } from './mat-upload';

const header = (text: string) =>
  Buffer.concat([Buffer.from(text, 'latin1'), Buffer.alloc(128 - text.length, 0x20)]);

/** Streams `chunks` through a check; the check's facts, or the refusal. */
async function check(chunks: Buffer[], maxBytes?: number) {
  const stream = new MatCheckStream(maxBytes);
  await pipeline(Readable.from(chunks), stream, new Writable({ write: (_c, _e, done) => done() }));
  return stream.facts();
}

describe('sniffMatFormat', () => {
  it('names v7.3, v5/v7 and zip by their first bytes, and nothing else', () => {
    expect(sniffMatFormat(header('MATLAB 7.3 MAT-file, Platform: GLNXA64'))).toBe('mat-v7.3');
    expect(sniffMatFormat(header('MATLAB 5.0 MAT-file, Platform: PCWIN64'))).toBe('mat-v5');
    expect(sniffMatFormat(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]))).toBe('zip');
    expect(sniffMatFormat(Buffer.from('Day,Sales\n1,2\n'))).toBeNull();
    expect(sniffMatFormat(Buffer.from('\x89HDF\r\n\x1a\n', 'latin1'))).toBeNull();
    expect(sniffMatFormat(Buffer.from('MATLAB'))).toBeNull();
  });

  it('takes .mat and .zip names (any case) for the .mat path; CSV and Excel names keep theirs', () => {
    expect(['scans.mat', 'SLICES.ZIP', ' a.Mat '].map(isMatUploadName)).toEqual([true, true, true]);
    expect(['prices.csv', 'book.xlsx', 'mat', 'scans.mat.csv'].map(isMatUploadName)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('MatCheckStream', () => {
  it('passes a MATLAB file split at any byte, with its size and sha256', async () => {
    const bytes = Buffer.concat([header('MATLAB 7.3 MAT-file'), Buffer.alloc(1000, 7)]);
    const facts = await check([bytes.subarray(0, 5), bytes.subarray(5, 300), bytes.subarray(300)]);
    expect(facts).toEqual({
      format: 'mat-v7.3',
      sizeBytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  });

  it("refuses other content, and a file shorter than the header, with 'Invalid file format...'", async () => {
    for (const chunks of [[Buffer.from('Day,Sales\n'.repeat(10))], [Buffer.from('MATLAB 7')]]) {
      const refusal = await check(chunks).catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(DatasetRefusal);
      expect((refusal as DatasetRefusal).message).toBe(MAT_MESSAGES.notMat);
    }
  });

  it('refuses a file over the limit as too large (413)', async () => {
    const refusal = await check([header('MATLAB 5.0 MAT-file'), Buffer.alloc(2048)], 1024).catch(
      (e: unknown) => e,
    );
    expect(refusal).toBeInstanceOf(DatasetRefusal);
    expect(refusal).toMatchObject({ status: 413, message: 'The file is larger than the limit of 1 KB.' });
  });
});
