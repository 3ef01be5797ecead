import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Directories the two commands create (listed in .gitignore), absent from a fresh clone. */
const INSTALLED = read('.gitignore')
  .split('\n')
  .filter((line) => line.endsWith('/') && !line.startsWith('#'))
  .map((line) => line.replace(/^\//, ''));
const madeByInstall = (named: string) => INSTALLED.some((dir) => `${named}/`.startsWith(dir));

describe('the docs name only what exists', () => {
  it('README shows the two commands first, and the Makefile and CI run them', () => {
    const readme = read('README.md');
    const firstBlock = readme.slice(readme.indexOf('```'), readme.indexOf('```', readme.indexOf('```') + 3));
    expect(firstBlock).toContain('make run');
    expect(firstBlock).toContain('make test');
    const makefile = read('Makefile');
    expect(makefile).toMatch(/^run:/m);
    expect(makefile).toMatch(/^test:/m);
    expect(read('.ci/run')).toMatch(/^make test$/m);
  });

  it.each(['README.md', 'docs/architecture.md'])('every path %s names in backticks exists', (file) => {
    const text = read(file);
    const paths = [...text.matchAll(/`((?:docs|server|src|schemas|codegen|worker|tests)\/[\w./-]*)`/g)].map(
      (m) => m[1]!,
    );
    expect(paths.length).toBeGreaterThan(3);
    for (const named of paths.filter((p) => !madeByInstall(p))) {
      expect(existsSync(path.join(ROOT, named)), named).toBe(true);
    }
  });

  it('every npm script the README names exists', () => {
    const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: object }).scripts);
    for (const [, name] of read('README.md').matchAll(/npm run ([\w:-]+)/g)) expect(scripts).toContain(name);
  });
});
