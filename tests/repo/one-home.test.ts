// Rules with one home stay there: a second copy of JSON-pointer escaping or of isPlainObject (by any name) in the
// TypeScript sources fails here (the worker keeps its own in Python).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SKIP = new Set(['node_modules', 'generated', 'artifacts', '__snapshots__']);

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (SKIP.has(name)) continue;
    if (statSync(path.join(ROOT, rel)).isDirectory()) sources(rel, out);
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(rel);
  }
  return out;
}

const FILES = ['src', 'server', 'codegen', 'tests'].flatMap((dir) => sources(dir));
const holding = (pattern: RegExp) =>
  FILES.filter((file) => pattern.test(readFileSync(path.join(ROOT, file), 'utf8'))).sort();

describe('one home per rule', () => {
  it('scans the sources it claims to', () => {
    expect(FILES).toContain('src/engine/pointer.ts');
    expect(FILES).toContain('server/services.ts');
  });

  it('JSON-pointer escaping lives in src/engine/pointer.ts only', () => {
    expect(holding(/['"`]~[01]['"`]/)).toEqual(['src/engine/pointer.ts']);
  });

  it('isPlainObject is defined in src/engine/json.ts only', () => {
    expect(holding(/function isPlainObject\b|const isPlainObject\s*=/)).toEqual(['src/engine/json.ts']);
  });

  it('the plain-object check itself is written there only (no isObject copies under other names)', () => {
    expect(holding(/typeof (\w+) === 'object' && \1 !== null && !Array\.isArray\(\1\)/)).toEqual([
      'src/engine/json.ts',
    ]);
  });
});
