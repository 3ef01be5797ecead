// Codegen: the json-schema-to-typescript pitfalls are handled, and src/generated is fresh.

import { describe, expect, it } from 'vitest';

import { buildAppDataSchema } from '../src/engine';
import { toCodegenSchema } from './codegen-schema';
import { generateJobBodyFixture, generateProblemTypes } from './generate-types';
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

// Whether src/generated is fresh is `codegen fresh` in make test's static checks (tests/run-all.ts runs
// `tsx codegen/generate-types.ts --check`: staleFiles(generateAll()), every file, api.ts's OpenAPI
// document from a server built on an in-memory database included). It is not run a second time here.
describe('generated types', () => {
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
      const fixture = JSON.parse(generateJobBodyFixture(p)) as {
        requests: Array<{ name: string; body: unknown }>;
      };
      expect(fixture.requests.length).toBeGreaterThanOrEqual(3);
      for (const r of fixture.requests)
        expect([r.name, validateJobBody(p, r.body).errors]).toEqual([r.name, []]);
    }
  });
});
