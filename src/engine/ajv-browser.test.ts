// The browser build's stand-in for ajv.ts (codegen/browser-without-ajv.ts swaps it in): it must offer
// every name ajv.ts does (a missing one breaks the build, a changed one the page), and each compiler
// refuses with a message that says what to do rather than ajv's own failure under the CSP.
import { describe, expect, it } from 'vitest';

import * as compiler from './ajv';
import * as standIn from './ajv-browser';

describe('the browser stand-in for the engine ajv', () => {
  it('exports the names ajv.ts exports', () => {
    expect(Object.keys(standIn).sort()).toEqual(Object.keys(compiler).sort());
  });

  it('shares the JSON pointer resolver the precompiled validators call', () => {
    expect(standIn.resolveDataPointer('/a/b', '', { a: { b: 3 } })).toBe(3);
  });

  it.each(['createFormAjv', 'createAppDataAjv', 'createPlainAjv', 'createDraft07Ajv'] as const)(
    '%s refuses to compile, naming the served validators',
    (name) => {
      expect(() => (standIn[name] as () => unknown)()).toThrow(
        /validators the server writes .*Reload the page/,
      );
    },
  );
});
