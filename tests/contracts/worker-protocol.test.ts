// Contract test for the worker protocol lines (one JSON object per stdout line of
// `python -m qmlstudio_worker run`). Twin: worker/tests/unit/test_protocol_contract.py reads the same
// schema (worker/qmlstudio_worker/schemas/worker-protocol.schema.json) and fixtures from Python; both
// must agree on every fixture.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';

interface Fixtures {
  valid: unknown[];
  invalid: unknown[];
}

function readJson<T>(name: string): T {
  return JSON.parse(readFileSync(fileURLToPath(new URL(name, import.meta.url)), 'utf8')) as T;
}

const schema = readJson<object>('../../worker/qmlstudio_worker/schemas/worker-protocol.schema.json');
const fixtures = readJson<Fixtures>('./worker-protocol.fixtures.json');
const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);

describe('worker protocol schema (twin: worker/tests/unit/test_protocol_contract.py)', () => {
  it('has fixtures of every line type', () => {
    const types = new Set(fixtures.valid.map((line) => (line as { type: string }).type));
    expect([...types].sort()).toEqual(['artifact', 'chart', 'error', 'log', 'metric', 'progress', 'result']);
    expect(fixtures.invalid.length).toBeGreaterThan(0);
  });

  it.each(fixtures.valid.map((line, index) => [index, JSON.stringify(line), line] as const))(
    'accepts valid line %i: %s',
    (_index, _text, line) => {
      const ok = validate(line);
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    },
  );

  it.each(fixtures.invalid.map((line, index) => [index, JSON.stringify(line), line] as const))(
    'rejects invalid line %i: %s',
    (_index, _text, line) => {
      expect(validate(line)).toBe(false);
    },
  );
});
