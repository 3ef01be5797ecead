// What the precompiled validators the server writes (node/generate-validators.ts) call: their module
// takes this module's exports as its parameter `runtime`:
// ajv's runtime helpers, the formats, and the engine's keyword functions. The engine's ajv keywords
// (ajv.ts) call the same functions when the server compiles at run time, so both agree. Nothing here
// compiles code: the browser runs these under a CSP without 'unsafe-eval'.

import type { FormatDefinition } from 'ajv/dist/2020';
import * as equalModule from 'ajv/dist/runtime/equal';
import * as ucs2lengthModule from 'ajv/dist/runtime/ucs2length';
import * as uriModule from 'ajv/dist/runtime/uri';
import { fullFormats } from 'ajv-formats/dist/formats';

import { isAtLeastYearsOld, isIanaTimeZone, isNotFutureDate } from './account-rules';
import { formatPointer, getPointer, parsePointer } from './pointer';

/**
 * The function a CommonJS module exports as `default`: bundlers hand it over as the namespace's
 * `default`, Node's ESM loader as `default.default` (its `default` is the whole `module.exports`).
 */
function cjsDefault<T>(namespace: { default: unknown }): T {
  const value = namespace.default as { default?: unknown } | undefined;
  return (typeof value === 'object' && value !== null && 'default' in value ? value.default : value) as T;
}

export const equal = cjsDefault<(a: unknown, b: unknown) => boolean>(equalModule);
export const ucs2length = cjsDefault<(text: string) => number>(ucs2lengthModule);
export const uri = cjsDefault<unknown>(uriModule);

/** The format the account forms add: a real IANA time-zone name. */
export const TIME_ZONE_FORMAT = 'iana-time-zone';
export const timeZoneFormat: FormatDefinition<string> = { type: 'string', validate: isIanaTimeZone };

/** Every format a form may name, by name: ajv-formats' full set and the engine's own. */
export const formats: Record<string, unknown> = { ...fullFormats, [TIME_ZONE_FORMAT]: timeZoneFormat };

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

/** x-minimum's limit: the referenced value plus the offset; undefined (no limit) when it is not a number. */
export function minimumOf(
  pointer: string,
  offset: number,
  instancePath: string,
  rootData: unknown,
): number | undefined {
  const ref = resolveDataPointer(pointer, instancePath, rootData);
  return typeof ref === 'number' ? ref + offset : undefined;
}

/** x-field.disabled: the reason the chosen option cannot be chosen, or false. */
export function disabledReason(disabled: Record<string, string>, data: unknown): string | false {
  if (typeof data !== 'string' && typeof data !== 'number') return false;
  return Object.prototype.hasOwnProperty.call(disabled, String(data)) ? disabled[String(data)]! : false;
}

// The account forms' keywords as the browser runs them: today's date, and no common-password list
// (that list is the server's; the server compiles its own validators with it).
export const notFuture = (data: string): boolean => isNotFutureDate(data, new Date());
export const minAgeYears = (years: number, data: string): boolean =>
  isAtLeastYearsOld(data, years, new Date());
export const notCommonPassword = (): boolean => true;
