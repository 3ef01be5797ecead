// The ajv instances the engine uses. App data: ajv 8 (draft 2020-12) with $data references,
// ajv-errors for the spec's messages, and the engine's own keywords:
//   x-field, x-default  annotations (how a field is shown, a default computed from the context),
//                       except x-field.disabled {value: reason}: choosing one fails with its reason
//   x-minimum           {"$data": <JSON pointer>, "offset": n}: value >= referenced value + n
// Job bodies and the schema files: plain ajv (draft 2020-12) without $data or custom keywords,
// so what passes here also passes Python's jsonschema in the worker.

import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import type { DataValidateFunction, DataValidationCxt } from 'ajv/dist/types';
import ajvErrors from 'ajv-errors';
import addFormats from 'ajv-formats';

import { formatPointer, getPointer, parsePointer } from './pointer';

export type AjvInstance = Ajv2020;

/** Resolves an absolute ("/context/rowCount") or relative ("1/from_index") JSON pointer. */
export function resolveDataPointer(pointer: string, instancePath: string, rootData: unknown): unknown {
  if (pointer.startsWith('/')) return getPointer(rootData, pointer);
  const match = /^(\d+)(.*)$/.exec(pointer);
  if (!match) return undefined;
  const up = Number(match[1]);
  const base = parsePointer(instancePath);
  if (up > base.length) return undefined;
  const target = base.slice(0, base.length - up);
  const rest = match[2] ?? '';
  const absolute = formatPointer(target) + rest;
  return getPointer(rootData, absolute);
}

const xMinimum: DataValidateFunction = function (
  this: unknown,
  schema: { $data: string; offset?: number },
  data: unknown,
  _parentSchema?: unknown,
  cxt?: DataValidationCxt,
): boolean {
  if (typeof data !== 'number' || !cxt) return true;
  const ref = resolveDataPointer(schema.$data, cxt.instancePath, cxt.rootData);
  if (typeof ref !== 'number') return true;
  const limit = ref + (schema.offset ?? 0);
  if (data >= limit) return true;
  xMinimum.errors = [{ keyword: 'x-minimum', message: `must be >= ${limit}`, params: { limit } }];
  return false;
};

const xFieldDisabled: DataValidateFunction = function (
  this: unknown,
  schema: { disabled?: Record<string, string> },
  data: unknown,
): boolean {
  const reason = (typeof data === 'string' || typeof data === 'number') && schema.disabled?.[String(data)];
  if (!reason) return true;
  xFieldDisabled.errors = [{ keyword: 'x-field', message: reason, params: { disabled: data } }];
  return false;
};

/**
 * The options every form validator shares (app data and the account forms): every error at once,
 * $data references, ajv-errors messages and the standard formats.
 */
export function createFormAjv(): AjvInstance {
  const ajv = new Ajv2020({
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

export function createAppDataAjv(): AjvInstance {
  const ajv = createFormAjv();
  ajv.addVocabulary(['x-default']);
  ajv.addKeyword({ keyword: 'x-field', schemaType: 'object', errors: true, validate: xFieldDisabled });
  ajv.addKeyword({
    keyword: 'x-minimum',
    type: 'number',
    schemaType: 'object',
    errors: true,
    validate: xMinimum,
  });
  return ajv;
}

export function createPlainAjv(): AjvInstance {
  const ajv = new Ajv2020({
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
