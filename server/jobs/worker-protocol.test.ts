// The server's side of the worker protocol contract. Twins: tests/contracts/worker-protocol.test.ts
// (the schema) and worker/tests/unit/test_protocol_contract.py (the Python emitter).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseWorkerLine } from './worker-protocol';

const fixtures = JSON.parse(
  readFileSync(new URL('../../tests/contracts/worker-protocol.fixtures.json', import.meta.url), 'utf8'),
) as { valid: { type: string }[] };

describe('parseWorkerLine', () => {
  it.each(fixtures.valid.map((line) => [line.type, JSON.stringify(line)] as const))(
    'reads a valid %s line',
    (type, text) => {
      expect(parseWorkerLine(text)).toEqual(JSON.parse(text));
      expect(parseWorkerLine(text)?.type).toBe(type);
    },
  );

  it('ignores what is not a protocol line', () => {
    for (const text of [
      '',
      'Traceback (most recent call last):',
      '[1, 2]',
      '{"type": "shout"}',
      '{not json',
    ]) {
      expect(parseWorkerLine(text)).toBeNull();
    }
  });
});
