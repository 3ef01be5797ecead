// Contract test for the job envelope the server writes to the stdin of `python -m qmlstudio_worker run`.
// Twin: worker/tests/unit/test_job_contract.py runs the same fixtures through the worker's own
// validation (and checks the field named in its error line).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';

interface Fixtures {
  valid: unknown[];
  invalid: { job: unknown; field: string }[];
}

const schemaUrl = (name: string) => new URL(`../../worker/qmlstudio_worker/schemas/${name}`, import.meta.url);
const readJson = <T>(url: URL): T => JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as T;

const ajv = new Ajv({ allErrors: true, strict: true });
const validateEnvelope = ajv.compile(readJson<object>(schemaUrl('job-envelope.schema.json')));
const fixtures = readJson<Fixtures>(new URL('./worker-job.fixtures.json', import.meta.url));

/** The envelope and, for a known kind, its params; an unknown kind (no params schema) is refused. */
function acceptsJob(job: unknown): boolean {
  if (!validateEnvelope(job)) return false;
  const { kind, params } = job as { kind: string; params: unknown };
  const paramsSchema = schemaUrl(`${kind}.params.schema.json`);
  if (!existsSync(fileURLToPath(paramsSchema))) return false;
  return ajv.compile(readJson<object>(paramsSchema))(params);
}

describe('worker job envelope (twin: worker/tests/unit/test_job_contract.py)', () => {
  it.each(fixtures.valid.map((job, index) => [index, JSON.stringify(job), job] as const))(
    'accepts valid job %i: %s',
    (_index, _text, job) => {
      expect(acceptsJob(job)).toBe(true);
    },
  );

  it.each(fixtures.invalid.map(({ job, field }, index) => [index, field, JSON.stringify(job), job] as const))(
    'refuses invalid job %i (%s): %s',
    (_index, _field, _text, job) => {
      expect(acceptsJob(job)).toBe(false);
    },
  );
});
