// The spec client's fixed query and a sent job body value, read against the saved application.

import { describe, expect, it } from 'vitest';

import { loadRegistry } from './node/load-schemas';
import { matchingSpecQuery, sentValueErrors, type AppData } from './index';

const registry = loadRegistry();
const brain = registry.getProblem('brain-tumor');
const stock = registry.getProblem('stock-price-prediction');
const example = (id: string) => structuredClone(registry.getProblem(id).example.appData) as AppData;

describe('matchingSpecQuery', () => {
  it("matches the spec's 1..10 for a classical and 1..100 for a quantum application only", () => {
    const classical = example(brain.id);
    expect(matchingSpecQuery(brain, classical, { user_id: '3', start_idx: '1', end_idx: '10' })).toEqual({
      start_idx: 1,
      end_idx: 10,
    });
    expect(matchingSpecQuery(brain, classical, { start_idx: '1', end_idx: '100' })).toBeNull();
    expect(matchingSpecQuery(brain, classical, { start_idx: '2', end_idx: '10' })).toBeNull();
    const quantum = example(brain.id);
    (quantum.model_configurations as Record<string, unknown>).modelType = 'quantum';
    expect(matchingSpecQuery(brain, quantum, { start_idx: '1', end_idx: '100' })).not.toBeNull();
    expect(matchingSpecQuery(stock, example(stock.id), { start_idx: '1', end_idx: '10' })).toBeNull();
  });
});

describe('sentValueErrors', () => {
  it("gives the form field's own message for a sent value over its limit, nothing for one within", () => {
    const saved = example(stock.id);
    expect(sentValueErrors(stock, saved, '/epochs', 150).map((e) => e.message)).toEqual([
      'Epochs must be less than or equal to 100',
    ]);
    expect(sentValueErrors(stock, saved, '/epochs', 7)).toEqual([]);
    // a key the body takes from the context, not from a field
    expect(sentValueErrors(stock, saved, '/id', -1)).toEqual([]);
  });
});
