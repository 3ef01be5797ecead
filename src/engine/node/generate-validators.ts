// The validators the browser runs, written as JavaScript from a registry: the browser's CSP has no
// 'unsafe-eval', so ajv may not compile there. The server writes them from the schema files it loaded
// (SCHEMAS_DIR) and serves them beside those files (GET /api/schemas/validators.js), so a problem added
// to or changed in SCHEMAS_DIR is validated in the browser with no rebuild. The same ajv setups the
// server compiles with at run time write the code (ajv/dist/standalone); the engine's keywords become
// calls into src/engine/validator-runtime.ts, which the module takes as its one parameter (`runtime`):
// a module served by the API cannot import the bundle's hashed files.

import standaloneCode from 'ajv/dist/standalone';

import { ACCOUNT_FORM_IDS, createAccountFormAjv } from '../account-forms';
import { createAppDataAjv, createPlainAjv, STANDALONE_OPTIONS, type AjvInstance } from '../ajv';
import { buildValidationSchema } from '../app-data-schema';
import { schemaFingerprint } from '../precompiled';
import type { Registry } from '../registry';

/** CommonJS output, so each part can be wrapped in a function that is handed `exports`. */
const OPTIONS = { ...STANDALONE_OPTIONS, code: { ...STANDALONE_OPTIONS.code, esm: false } };

/** Where ajv's standalone code requires a module, what the generated module uses instead. */
const REQUIRES: Record<string, string> = {
  'require("ajv/dist/runtime/ucs2length").default': 'runtime.ucs2length',
  'require("ajv/dist/runtime/equal").default': 'runtime.equal',
  'require("ajv/dist/runtime/uri").default': 'runtime.uri',
};

/** An expression for ajv's standalone exports of `refs`, with its `require(...)`s replaced by runtime's. */
function partCode(ajv: AjvInstance, refs: Record<string, string>): string {
  const code = standaloneCode(ajv, refs).replace(/require\("[^"]+"\)(\.[A-Za-z_$][\w$]*)?/g, (found) => {
    const replacement = REQUIRES[found];
    if (!replacement) throw new Error(`generate-validators: no runtime export for ${found}`);
    return replacement;
  });
  return `(function () {\nconst exports = {};\n${code}\nreturn exports;\n})()`;
}

/** A name for an export: the key with every character outside [A-Za-z0-9] as "_". */
const exportName = (prefix: string, key: string) => `${prefix}_${key.replace(/[^A-Za-z0-9]/g, '_')}`;

/**
 * An ES module whose default export takes validator-runtime's exports and returns every validator the
 * browser runs (PrecompiledValidators): each problem's app_data and job body, with the fingerprint of
 * the schemas they were made from, and the account forms. Not the meta-schemas: the server refused
 * any file that breaks its meta-schema before serving it.
 */
export function generateValidatorsModule(registry: Registry): string {
  const appDataAjv = createAppDataAjv(OPTIONS);
  const jobBodyAjv = createPlainAjv(OPTIONS);
  const problems: string[] = [];
  const appDataRefs: Record<string, string> = {};
  const jobBodyRefs: Record<string, string> = {};
  for (const problem of registry.problems) {
    const appDataSchema = buildValidationSchema(problem);
    const appData = exportName('appData', problem.id);
    const jobBody = exportName('jobBody', problem.id);
    appDataAjv.addSchema(appDataSchema as object, appData);
    jobBodyAjv.addSchema(problem.job.bodySchema as object, jobBody);
    appDataRefs[appData] = appData;
    jobBodyRefs[jobBody] = jobBody;
    const fingerprint = schemaFingerprint(appDataSchema, problem.job.bodySchema);
    problems.push(
      `    ${JSON.stringify(problem.id)}: { appData: appData.${appData}, jobBody: jobBody.${jobBody}, fingerprint: ${JSON.stringify(fingerprint)} },`,
    );
  }

  const accountAjv = createAccountFormAjv(undefined, undefined, OPTIONS);
  const accountForms: string[] = [];
  const accountRefs: Record<string, string> = {};
  for (const id of ACCOUNT_FORM_IDS) {
    const name = exportName('accountForm', id);
    accountAjv.addSchema(registry.accountForms[id].schema, name);
    accountRefs[name] = name;
    accountForms.push(`    ${JSON.stringify(id)}: accountForms.${name},`);
  }

  return [
    '/* Written by the server from its schema files (src/engine/node/generate-validators.ts). */',
    'export default function validators(runtime) {',
    `const appData = ${partCode(appDataAjv, appDataRefs)};`,
    `const jobBody = ${partCode(jobBodyAjv, jobBodyRefs)};`,
    `const accountForms = ${partCode(accountAjv, accountRefs)};`,
    'return {',
    '  problems: {',
    ...problems,
    '  },',
    '  accountForms: {',
    ...accountForms,
    '  },',
    '};',
    '}',
    '',
  ].join('\n');
}
