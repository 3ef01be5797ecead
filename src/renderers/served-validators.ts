// The validators the browser runs, from the server (GET /api/schemas/validators.js): written from the
// same schema files the browser's registry is built from (GET /api/schemas, its SCHEMAS_DIR), so a
// problem added there is validated with no rebuild. The page's CSP has no 'unsafe-eval', so ajv may
// not compile here; 'self' lets the page import a module from its own origin. The module takes the
// engine's validator runtime as its parameter: it cannot import the bundle's hashed files.

import { installPrecompiledValidators, type PrecompiledValidators } from '../engine';
import * as runtime from '../engine/validator-runtime';

export const SERVED_VALIDATORS_URL = '/api/schemas/validators.js';

/** Imports the server's validators and installs them; rejects with what went wrong. */
export async function installServedValidators(): Promise<void> {
  const url = new URL(SERVED_VALIDATORS_URL, window.location.origin).href;
  let module: { default: (runtime: unknown) => PrecompiledValidators };
  try {
    module = (await import(/* @vite-ignore */ url)) as typeof module;
  } catch (error) {
    throw new Error(`The validators could not be loaded (GET ${SERVED_VALIDATORS_URL}): ${String(error)}`);
  }
  installPrecompiledValidators(module.default(runtime));
}
