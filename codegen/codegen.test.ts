// Codegen: the json-schema-to-typescript pitfalls are handled, and src/generated is fresh.

import { beforeAll, describe, expect, it } from 'vitest';

import { buildAppDataSchema } from '../src/engine';
import { toCodegenSchema } from './codegen-schema';
import { generateAll, generateProblemTypes, staleFiles } from './generate-types';
import { loadRegistry } from '../src/engine/node/load-schemas';

const registry = loadRegistry();

describe('toCodegenSchema', () => {
  it('hoists properties declared only in then/else, as optional, with additionalProperties false', () => {
    const schema = toCodegenSchema({
      type: 'object',
      title: 'Root',
      properties: { mode: { title: 'Mode', enum: ['a', 'b'], 'x-field': { kind: 'select' } } },
      required: ['mode'],
      allOf: [
        {
          if: { properties: { mode: { const: 'a' } }, required: ['mode'] },
          then: {
            properties: { extra: { type: 'integer', minimum: { $data: '/context/rowCount' } } },
            required: ['extra'],
          },
          else: { properties: { other: { type: 'string' } } },
        },
      ],
      errorMessage: { required: { mode: 'Mode is required' } },
    });
    expect(schema).toEqual({
      type: 'object',
      title: 'Root',
      properties: {
        mode: { description: 'Mode', enum: ['a', 'b'] },
        extra: { type: 'integer' },
        other: { type: 'string' },
      },
      required: ['mode'],
      additionalProperties: false,
    });
  });

  it('unions the options a field has across branches', () => {
    const stock = registry.getProblem('stock-price-prediction');
    const schema = toCodegenSchema(buildAppDataSchema(stock)) as {
      properties: { model_configurations: { properties: Record<string, { enum?: unknown[] }> } };
    };
    expect(schema.properties.model_configurations.properties.training_model_method!.enum).toEqual([
      'Quantum',
      'LSTM',
      'GRU',
      'RNN',
    ]);
  });
});

describe('generated types', () => {
  // Generating every file is CPU-bound (several seconds on a busy 2-core machine): do it once.
  let files: Map<string, string>;
  beforeAll(async () => {
    files = await generateAll(registry);
  }, 60_000);

  it('carry a do-not-edit header and both types per problem', async () => {
    const text = await generateProblemTypes(registry.getProblem('brain-tumor'));
    expect(text.split('\n')[0]).toContain('do not edit');
    expect(text).toContain('export interface BrainTumorAppData');
    expect(text).toContain('export interface BrainTumorTrainJobBody');
    expect(text).toContain('numQubits?: 4 | 10 | 15 | 20;');
    expect(text).not.toContain('[k: string]: unknown');
  });

  it('job-request fixtures: every body passes its job-body schema', async () => {
    const { validateJobBody } = await import('../src/engine');
    for (const p of registry.problems) {
      const fixture = JSON.parse(files.get(`fixtures/${p.id}.job-requests.json`)!) as {
        requests: Array<{ name: string; body: unknown }>;
      };
      expect(fixture.requests.length).toBeGreaterThanOrEqual(3);
      for (const r of fixture.requests)
        expect([r.name, validateJobBody(p, r.body).errors]).toEqual([r.name, []]);
    }
  });

  it('src/generated is up to date with schemas/ (npm run codegen)', () => {
    expect(staleFiles(files)).toEqual([]);
  });
});
