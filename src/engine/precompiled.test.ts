// The browser validates with the validators the server writes from its schema files
// (node/generate-validators.ts, served at GET /api/schemas/validators.js); Node compiles the same
// schemas at run time. Both must give the same answers, messages included: the
// comparisons below, and the engine's validation and account-form suites run again with the
// precompiled validators installed (the 'again with precompiled validators' block).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  ACCOUNT_FORM_IDS,
  createDefaultAppData,
  createExampleAppData,
  installPrecompiledValidators,
  precompiledValidators,
  validateAccountForm,
  validateAppData,
  validateJobBody,
  type AccountFormId,
  type AppData,
  type EngineContext,
  type Problem,
} from './index';
import { generateValidatorsModule } from './node/generate-validators';
import { loadRegistry } from './node/load-schemas';
import { isPlainObject } from './json';
import type { PrecompiledValidators } from './precompiled';
import * as runtime from './validator-runtime';

const registry = loadRegistry();

/** The module as the browser gets it, imported from a file and handed the runtime as the browser does. */
async function importModule(code: string): Promise<PrecompiledValidators> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'qml-validators-'));
  try {
    const file = path.join(dir, 'validators.mjs');
    writeFileSync(file, code);
    const module = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as {
      default: (r: typeof runtime) => PrecompiledValidators;
    };
    return module.default(runtime);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Writing every validator is CPU-bound (seconds on a busy 2-core machine): once, for every suite here.
const PRECOMPILED_VALIDATORS = await importModule(generateValidatorsModule(registry));

/** The answer at run time (Node compiles) and with the precompiled validators installed. */
function both<T>(run: () => T): { compiled: T; precompiled: T } {
  installPrecompiledValidators(undefined);
  const compiled = run();
  installPrecompiledValidators(PRECOMPILED_VALIDATORS);
  try {
    return { compiled, precompiled: run() };
  } finally {
    installPrecompiledValidators(undefined);
  }
}

const BAD_VALUES: unknown[] = [-1, 0, 1e9, 2.5, '', 'not-a-choice', null, true, [], {}];

/** app_data with one field of one form set to `value`, for every field the form declares. */
function* variants(problem: Problem, base: AppData): Generator<[string, AppData]> {
  for (const key of problem.formKeys) {
    const form = base[key];
    const properties = (problem.forms[key]!.schema as { properties?: Record<string, unknown> }).properties;
    for (const field of Object.keys(properties ?? {}))
      for (const value of BAD_VALUES)
        yield [
          `/${key}/${field} = ${JSON.stringify(value)}`,
          { ...base, [key]: { ...(isPlainObject(form) ? form : {}), [field]: value } },
        ];
  }
}

describe('precompiled validators give the answers of run-time compiled ones', () => {
  it('cover every problem and account form', () => {
    expect(Object.keys(PRECOMPILED_VALIDATORS.problems).sort()).toEqual(
      registry.problems.map((p) => p.id).sort(),
    );
    expect(Object.keys(PRECOMPILED_VALIDATORS.accountForms).sort()).toEqual([...ACCOUNT_FORM_IDS].sort());
  });

  for (const problem of registry.problems) {
    it(`app_data and job body of ${problem.id}, field by field with bad values`, () => {
      const example = createExampleAppData(problem);
      const contexts: EngineContext[] = [{}, { rowCount: 120, columns: ['a', 'b'] }, example.context];
      let invalid = 0;
      for (const context of contexts) {
        const bases: AppData[] = [createDefaultAppData(problem, context), example.appData, {}];
        for (const base of bases)
          for (const [what, appData] of [['as is', base] as [string, AppData], ...variants(problem, base)]) {
            const { compiled, precompiled } = both(() => validateAppData(problem, appData, context));
            expect([what, precompiled]).toEqual([what, compiled]);
            if (!compiled.valid) invalid++;
            const body = { id: 1, ...((appData.model_configurations as object | undefined) ?? {}) };
            const jobBody = both(() => validateJobBody(problem, body));
            expect([what, jobBody.precompiled]).toEqual([what, jobBody.compiled]);
          }
      }
      // The comparison saw refusals with messages, not only valid data.
      expect(invalid).toBeGreaterThan(10);
    });
  }

  const today = new Date().toISOString().slice(0, 10);
  const ACCOUNT_VALUES: Record<string, unknown>[] = [
    {},
    { name: 'ab', email: 'nope', password: '123' },
    { name: 'Ada Lovelace', email: 'ada@example.com', password: 'a long enough passphrase' },
    { password: 'short', new_password: 'x', confirm_password: 'y' },
    { new_password: 'a long enough passphrase', confirm_password: 'a long enough passphrase' },
    { date_of_birth: '2999-01-01', time_zone: 'Not/AZone' },
    { date_of_birth: today, time_zone: 'Europe/Berlin' },
    { date_of_birth: '1990-02-03', time_zone: 'UTC+2' },
    { email: 'ada@example.com', message: '', subject: 'x'.repeat(500) },
    { app_name: '', problem_id: 7, category: null },
  ];

  for (const id of ACCOUNT_FORM_IDS) {
    it(`account form ${id}`, () => {
      for (const values of ACCOUNT_VALUES) {
        const { compiled, precompiled } = both(() =>
          validateAccountForm(registry.accountForms, id as AccountFormId, values),
        );
        expect([values, precompiled]).toEqual([values, compiled]);
      }
    });
  }
});

describe('a problem changed since its validators were written', () => {
  it('is refused with the way out, not validated with the old schema or compiled', () => {
    const stock = registry.getProblem('stock-price-prediction');
    const changed = structuredClone(stock);
    (changed.forms.model_configurations!.schema as { required?: string[] }).required = ['no_such_field'];
    installPrecompiledValidators(PRECOMPILED_VALIDATORS);
    try {
      expect(validateAppData(stock, createDefaultAppData(stock)).valid).toBeDefined();
      expect(() => validateAppData(changed, createDefaultAppData(changed))).toThrow(
        'No precompiled validator for problem "stock-price-prediction" as it is now: the validators were written from other schema files (the server may have restarted with changed ones). Reload the page.',
      );
    } finally {
      installPrecompiledValidators(undefined);
    }
  });
});

describe('again with precompiled validators', async () => {
  beforeAll(() => installPrecompiledValidators(PRECOMPILED_VALIDATORS));
  afterAll(() => installPrecompiledValidators(undefined));
  // Their tests run inside this block, after beforeAll has installed the validators.
  it('are installed for the suites below', () =>
    expect(precompiledValidators()).toEqual(PRECOMPILED_VALIDATORS));
  // Under their own module ids: the unit project shares evaluated modules between files (isolate:
  // false), so a plain import would be the module validate.test.ts's own run already evaluated (or
  // will find evaluated), and one of the two runs would register no test.
  const again = (file: string) =>
    import(/* @vite-ignore */ `${new URL(file, import.meta.url).href}?with-precompiled-validators`);
  await again('./validate.test.ts');
  await again('./account-forms.test.ts');
});
