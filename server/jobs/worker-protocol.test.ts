// The server's side of the worker contracts, read through src/generated/worker-contract.ts (generated
// from worker/qmlstudio_worker/schemas/). Twins: tests/contracts/worker-protocol.test.ts (the schema)
// and worker/tests/unit/test_protocol_contract.py (the Python emitter) read the same fixtures.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildJobEnvelope, InvalidJobEnvelopeError, parseWorkerLine } from './worker-protocol';

const fixtures = JSON.parse(
  readFileSync(new URL('../../tests/contracts/worker-protocol.fixtures.json', import.meta.url), 'utf8'),
) as { valid: { type: string }[]; invalid: unknown[] };

describe('parseWorkerLine', () => {
  it.each(fixtures.valid.map((line) => [line.type, JSON.stringify(line)] as const))(
    'reads a valid %s line',
    (type, text) => {
      expect(parseWorkerLine(text)).toEqual(JSON.parse(text));
      expect(parseWorkerLine(text)?.type).toBe(type);
    },
  );

  it.each(fixtures.invalid.map((line) => [JSON.stringify(line)] as const))(
    'refuses a line that breaks the protocol schema: %s',
    (text) => {
      expect(parseWorkerLine(text)).toBeNull();
    },
  );

  it('refuses a known line type without its fields', () => {
    // Accepted before the parser validated against the schema: only `type` was checked.
    expect(parseWorkerLine('{"type":"progress"}')).toBeNull();
    expect(parseWorkerLine('{"type":"progress","percent":150,"stage":"x"}')).toBeNull();
    expect(parseWorkerLine('{"type":"error","message":"boom"}')).toBeNull();
    expect(parseWorkerLine('{"type":"result","data":[]}')).toBeNull();
    expect(parseWorkerLine('{"type":"progress","percent":50,"stage":"half"}')).toEqual({
      type: 'progress',
      percent: 50,
      stage: 'half',
    });
  });

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

describe('buildJobEnvelope', () => {
  it('builds the envelope the worker reads', () => {
    expect(buildJobEnvelope({ id: 12, kind: 'self-test', params: { shots: 8 } })).toEqual({
      kind: 'self-test',
      job_id: '12',
      params: { shots: 8 },
    });
  });

  it.each([
    [{ id: 1, kind: 'Self Test', params: {} }, '/kind'],
    [{ id: 1, kind: '../etc/passwd', params: {} }, '/kind'],
    [{ id: 1, kind: 'self-test', params: null }, '/params'],
    [{ id: 1, kind: 'self-test', params: [1] }, '/params'],
  ])('refuses an envelope its worker would refuse, naming the field: %j', (job, field) => {
    let caught: unknown;
    try {
      buildJobEnvelope(job);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidJobEnvelopeError);
    expect((caught as InvalidJobEnvelopeError).field).toBe(field);
    expect((caught as Error).message).toMatch(
      new RegExp(`^The job could not be handed to a worker: ${field} `),
    );
  });

  it("carries fraud detection's recall target and refuses one outside 0.5..0.99, naming it", () => {
    const dataset = {
      path: '/data/fraud.csv',
      sha256: 'a'.repeat(64),
      row_count: 10,
      columns: ['V1', 'Class'],
      label: 'fraud.csv',
      synthetic: true,
    };
    const job = (recall_target: number | null) => ({
      id: 3,
      kind: 'fraud-detection',
      params: {},
      extension: { dataset, recall_target, seed: 42 },
    });
    expect(buildJobEnvelope(job(0.9)).extension).toMatchObject({ recall_target: 0.9 });
    expect(buildJobEnvelope(job(null)).extension).toMatchObject({ recall_target: null });
    expect(() => buildJobEnvelope(job(0.3))).toThrow(
      /^The job could not be handed to a worker: \/extension\/recall_target /,
    );
  });
});
