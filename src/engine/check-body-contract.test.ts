// The body contract on edited copies of the real problem files: what the form can hold must be
// what the job body accepts, through transforms, sibling limits and conditional branches.

import { describe, expect, it } from 'vitest';

import { checkSchemaSources, createRegistry } from '.';
import { loadSchemaSources } from './node/load-schemas';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test fixtures are edited freely

const STOCK = 'problems/stock-price-prediction.json';
const BRAIN = 'problems/brain-tumor.json';

function reasonsAfter(file: string, edit: (json: Json) => void): string[] {
  const sources = loadSchemaSources();
  const copy = structuredClone(sources[file]) as Json;
  edit(copy);
  // Of the problem files only the edited one: a problem is checked against the shared files, never
  // against another problem, and the other five would multiply each case's CPU time.
  const others = (name: string) => name.startsWith('problems/') && name !== file;
  const kept = Object.entries(sources).filter(([name]) => !others(name));
  return checkSchemaSources({ ...Object.fromEntries(kept), [file]: copy }).map(
    (i) => `${i.pointer}: ${i.reason}`,
  );
}

describe('job-body contract', () => {
  it('a transform that changes the type is followed (toString of epochs into an integer body key)', () => {
    const reasons = reasonsAfter(STOCK, (j) => (j.job.body[7].transform = 'toString'));
    expect(reasons).toContain(
      '/job/body/7/from: /model_configurations/epochs admits any string, the job body does not (type "integer") (the job body\'s /epochs)',
    );
  });

  it('a limit taken from a sibling counts as that sibling’s limit (to_index >= from_index >= 1)', () => {
    expect(reasonsAfter(STOCK, () => {})).toEqual([]);
    const reasons = reasonsAfter(STOCK, (j) => (j.job.bodySchema.properties.to_index.minimum = 2));
    expect(reasons).toContain(
      "/job/body/12/from: /preprocess/splitter/to_index admits numbers >= 1, the job body requires >= 2 (the job body's /to_index)",
    );
  });

  it('a base declaration every branch narrows is not checked on its own, one that some state leaves open is', () => {
    // Classical and quantum both narrow batchSize to options; without the quantum narrowing a
    // quantum model could send any integer, which the body (minimum 1) refuses.
    const reasons = reasonsAfter(BRAIN, (j) => {
      delete j.forms.model_configurations.schema.allOf[1].then.properties.batchSize;
    });
    expect(reasons).toContain(
      "/job/body/1/from: /model_configurations/batchSize admits numbers with no lower limit, the job body requires >= 1 (the job body's /batch_size)",
    );
  });

  it('a key the body requires but a valid form may leave unset (no default) is refused', () => {
    const reasons = reasonsAfter(STOCK, (j) => delete j.job.body[10].default);
    expect(reasons).toContain(
      '/job/body/10: the job body requires "qubits" but a valid form may leave "/model_configurations/qubits" unset and the entry has no default',
    );
  });

  it('a body $ref keeps only the definition’s validation keywords', () => {
    const registry = createRegistry(loadSchemaSources());
    const body = registry.getProblem('stock-price-prediction').job.bodySchema as Json;
    expect(body.properties.epochs).toEqual({ type: 'integer', minimum: 5, maximum: 100 });
    expect(body.properties.qubits).toEqual({
      anyOf: [{ type: 'integer', minimum: 4, maximum: 10 }, { type: 'null' }],
    });
  });
});
