import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkMriPixels, type PixelImage } from './mri-image-check';
import { loadRegistry } from './node/load-schemas';

interface Case {
  name: string;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
  rows: string[];
  expected: { ok: boolean; reason?: string; channelSpread: number; centreMean: number; borderMean: number };
}

// Read, not imported: the fixture is shared with the worker's test (nothing imports tests/).
const fixture = JSON.parse(
  readFileSync(new URL('../../tests/contracts/mri-image-check.json', import.meta.url), 'utf8'),
) as { cases: Case[] };
const rule = loadRegistry().getProblem('brain-tumor').predict!.mriCheck!;

function image(testCase: Case): PixelImage {
  const bytes = testCase.rows.flatMap((row) => [...Buffer.from(row, 'hex')]);
  return { width: testCase.width, height: testCase.height, channels: testCase.channels, data: bytes };
}

describe('the MRI look check (the same cases as the worker: tests/contracts/mri-image-check.json)', () => {
  it.each(fixture.cases.map((c) => [c.name, c] as const))('%s', (_name, testCase) => {
    const check = checkMriPixels(image(testCase), rule);
    expect({ ok: check.ok, reason: check.reason }).toEqual({
      ok: testCase.expected.ok,
      reason: testCase.expected.reason,
    });
    expect(check.channelSpread).toBeCloseTo(testCase.expected.channelSpread, 5);
    expect(check.centreMean).toBeCloseTo(testCase.expected.centreMean, 5);
    expect(check.borderMean).toBeCloseTo(testCase.expected.borderMean, 5);
  });

  it('refuses a pixel buffer whose length does not match its size', () => {
    expect(() =>
      checkMriPixels({ width: 4, height: 4, channels: 4, data: new Uint8ClampedArray(60) }, rule),
    ).toThrow(/4 x 4 x 4/);
  });
});
