// Validators compiled ahead of time: the server writes them from its schema files
// (node/generate-validators.ts) and serves them (GET /api/schemas/validators.js); the browser installs
// them at start (src/renderers/served-validators.ts): its CSP has no 'unsafe-eval', so ajv may not
// compile there. Node (server, tests, codegen) installs nothing and compiles at run time.

import type { ErrorObject } from 'ajv/dist/2020';

import type { AccountFormId } from './account-forms';

/** What the engine uses of a validator, compiled now or ahead of time. */
export interface Validate {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

export interface PrecompiledValidators {
  /**
   * By problem id: its app_data (buildValidationSchema) and job-body validators, and the
   * fingerprint of the two schemas they were compiled from (schemaFingerprint).
   */
  problems: Record<string, { appData: Validate; jobBody: Validate; fingerprint: string }>;
  /** The account forms as the browser checks them (no common-password list). */
  accountForms: Record<AccountFormId, Validate>;
}

let installed: Partial<PrecompiledValidators> | undefined;

/**
 * From now on the engine uses these instead of compiling (added to what is installed, so a bundle
 * can install each part where it is needed); `undefined` goes back to compiling.
 */
export function installPrecompiledValidators(validators: Partial<PrecompiledValidators> | undefined): void {
  installed = validators && { ...installed, ...validators };
}

export function precompiledValidators(): Partial<PrecompiledValidators> | undefined {
  return installed;
}

/**
 * A short fingerprint of JSON data (FNV-1a, 32 bits, over its JSON text): precompiled validators
 * are used only for the schemas they were compiled from, not for a problem file changed since.
 */
export function schemaFingerprint(...values: unknown[]): string {
  let hash = 0x811c9dc5;
  for (const char of JSON.stringify(values)) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
