// The ajv instances the engine uses. App data: ajv 8 (draft 2020-12) with $data references,
// ajv-errors for the spec's messages, and the engine's own keywords:
//   x-field, x-default  annotations (how a field is shown, a default computed from the context),
//                       except x-field.disabled {value: reason}: choosing one fails with its reason
//   x-minimum           {"$data": <JSON pointer>, "offset": n}: value >= referenced value + n
// Job bodies and the schema files: plain ajv (draft 2020-12) without $data or custom keywords,
// so what passes here also passes Python's jsonschema in the worker.

import Ajv from 'ajv';
import Ajv2020, { _, Name, str, stringify, type KeywordCxt, type Options } from 'ajv/dist/2020';
import { getProperty, strConcat } from 'ajv/dist/compile/codegen';
import ajvErrors from 'ajv-errors';
import addFormats from 'ajv-formats';

import * as runtime from './validator-runtime';

export type AjvInstance = Ajv2020;
export { resolveDataPointer } from './validator-runtime';

/**
 * The options that make an ajv instance write standalone code (node/generate-validators.ts):
 * the generated modules import validator-runtime.ts as `runtime`, and every format is looked up in
 * its `formats`.
 */
export const STANDALONE_OPTIONS: Options = {
  code: { source: true, esm: true, formats: _`runtime.formats` },
};

/**
 * A function the generated code calls: `ref` when ajv compiles at run time, `runtime.<name>` (the
 * same function in validator-runtime.ts, or what `ref` stands for there) in standalone code.
 */
function runtimeFunction(cxt: KeywordCxt, name: keyof typeof runtime, ref: unknown): Name {
  return cxt.gen.scopeValue('func', { key: ref, ref, code: _`runtime${getProperty(name)}` });
}

// ajv's names of the generated function's variables (ajv/dist/compile/names, whose default export
// Node's ESM loader and bundlers hand over differently).
const INSTANCE_PATH = new Name('instancePath');
const ROOT_DATA = new Name('rootData');

/** The instance path of the value a keyword checks, as ajv passes it to function keywords. */
const instancePathOf = (cxt: KeywordCxt) => strConcat(INSTANCE_PATH, cxt.it.errorPath);

/**
 * The options every form validator shares (app data and the account forms): every error at once,
 * $data references, ajv-errors messages and the standard formats.
 */
export function createFormAjv(options: Options = {}): AjvInstance {
  const ajv = new Ajv2020({
    ...options,
    allErrors: true,
    $data: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    allowUnionTypes: true,
  });
  ajvErrors(ajv);
  addFormats(ajv);
  return ajv;
}

export function createAppDataAjv(options: Options = {}): AjvInstance {
  const ajv = createFormAjv(options);
  ajv.addVocabulary(['x-default']);
  ajv.addKeyword({
    keyword: 'x-field',
    schemaType: 'object',
    error: {
      message: ({ params }) => str`${params.reason!}`,
      params: ({ params }) => _`{disabled: ${params.disabled!}}`,
    },
    code(cxt) {
      const disabled = (cxt.schema as { disabled?: Record<string, string> }).disabled;
      if (!disabled || Object.keys(disabled).length === 0) return;
      const reasonOf = runtimeFunction(cxt, 'disabledReason', runtime.disabledReason);
      const reason = cxt.gen.const('reason', _`${reasonOf}(${stringify(disabled)}, ${cxt.data})`);
      cxt.setParams({ reason, disabled: cxt.data });
      cxt.fail(reason);
    },
  });
  ajv.addKeyword({
    keyword: 'x-minimum',
    type: 'number',
    schemaType: 'object',
    error: {
      message: ({ params }) => str`must be >= ${params.limit!}`,
      params: ({ params }) => _`{limit: ${params.limit!}}`,
    },
    code(cxt) {
      const { $data: pointer, offset = 0 } = cxt.schema as { $data: string; offset?: number };
      const minimumOf = runtimeFunction(cxt, 'minimumOf', runtime.minimumOf);
      const limit = cxt.gen.const(
        'limit',
        _`${minimumOf}(${pointer}, ${offset}, ${instancePathOf(cxt)}, ${ROOT_DATA})`,
      );
      cxt.setParams({ limit });
      cxt.fail(_`${limit} !== undefined && !(${cxt.data} >= ${limit})`);
    },
  });
  return ajv;
}

/**
 * A boolean-or-number keyword that holds when `check(schemaValue?, data)` does: `ref` at run time,
 * `runtime.<name>` in standalone code. A `false` schema turns a boolean keyword off.
 */
export function addCheckKeyword(
  ajv: AjvInstance,
  keyword: string,
  schemaType: 'boolean' | 'number',
  name: keyof typeof runtime,
  ref: ((data: string) => boolean) | ((value: number, data: string) => boolean),
): void {
  ajv.addKeyword({
    keyword,
    type: 'string',
    schemaType,
    code(cxt) {
      if (cxt.schema === false) return;
      const check = runtimeFunction(cxt, name, ref);
      cxt.fail(
        schemaType === 'number' ? _`!${check}(${cxt.schemaValue}, ${cxt.data})` : _`!${check}(${cxt.data})`,
      );
    },
  });
}

export function createPlainAjv(options: Options = {}): AjvInstance {
  const ajv = new Ajv2020({
    ...options,
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    allowUnionTypes: true,
  });
  addFormats(ajv);
  return ajv;
}

/** Draft-07 ajv: job-body schemas must also mean the same under draft-07 (the worker's validator). */
export function createDraft07Ajv(): Ajv {
  return new Ajv({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    allowUnionTypes: true,
  });
}
