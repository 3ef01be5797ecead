// The browser build's stand-in for ajv.ts (codegen/browser-without-ajv.ts swaps it in): the browser
// validates with the validators the server wrote (precompiled.ts) and its CSP has no 'unsafe-eval',
// so it never compiles a schema; keeping ajv's compiler out of the bundle saves its weight on every
// first page. Same exports as ajv.ts (types only are imported from there, so nothing of ajv is bundled).

import type * as Compiler from './ajv';

export type { AjvInstance } from './ajv';
export { resolveDataPointer } from './validator-runtime';

function refuse(): never {
  throw new Error(
    'This page cannot compile a schema: it validates with the validators the server writes (GET /api/schemas/validators.js), which were not installed. Reload the page.',
  );
}

export const STANDALONE_OPTIONS: typeof Compiler.STANDALONE_OPTIONS = {};
export const createFormAjv: typeof Compiler.createFormAjv = refuse;
export const createAppDataAjv: typeof Compiler.createAppDataAjv = refuse;
export const addCheckKeyword: typeof Compiler.addCheckKeyword = refuse;
export const createPlainAjv: typeof Compiler.createPlainAjv = refuse;
export const createDraft07Ajv: typeof Compiler.createDraft07Ajv = refuse;
