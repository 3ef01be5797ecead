// The worker's contracts reach the server only through src/generated/worker-contract.ts: a change to a
// schema file in worker/qmlstudio_worker/schemas/ changes the generated file, which `codegen --check`
// then reports stale until it is regenerated and committed.

import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { staleFiles } from './generate-types';
import { generateWorkerContract, WORKER_SCHEMAS_DIR } from './generate-worker-contract';
import { selfTestParamsSchema, workerLineSchema } from '../src/generated/worker-contract';

/** What `codegen --check` says about src/generated/worker-contract.ts given this generated text. */
const contractStaleness = (text: string) =>
  staleFiles(new Map([['worker-contract.ts', text]])).filter((line) => line.startsWith('worker-contract.ts'));

describe('generateWorkerContract', () => {
  it('is what src/generated/worker-contract.ts holds', async () => {
    expect(contractStaleness(await generateWorkerContract())).toEqual([]);
  });

  it('follows an edit of a worker schema file, and the check reports the committed file stale', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'worker-schemas-'));
    cpSync(WORKER_SCHEMAS_DIR, dir, { recursive: true });
    const file = path.join(dir, 'self-test.params.schema.json');
    const schema = JSON.parse(readFileSync(file, 'utf8')) as {
      properties: { shots: { maximum: number } };
    };
    schema.properties.shots.maximum = 123456;
    writeFileSync(file, JSON.stringify(schema));

    const text = await generateWorkerContract(dir);
    expect(text).toContain('maximum: 123456');
    expect(contractStaleness(text)).toEqual(['worker-contract.ts (out of date)']);
  });

  it('emits the schemas the server validates with, without $schema and $comment', () => {
    const fromFile = JSON.parse(
      readFileSync(path.join(WORKER_SCHEMAS_DIR, 'self-test.params.schema.json'), 'utf8'),
    ) as { properties: { seed: object } };
    expect(selfTestParamsSchema.properties.seed.maximum).toBe(4294967295);
    expect(JSON.stringify(selfTestParamsSchema)).not.toMatch(/"\$(schema|comment)"/);
    expect(JSON.stringify(workerLineSchema)).not.toMatch(/"\$(schema|comment)"/);
    const { $comment: _comment, ...seed } = fromFile.properties.seed as Record<string, unknown>;
    expect(selfTestParamsSchema.properties.seed).toEqual(seed);
  });
});
