// The layering rules in eslint.config.js, proved: each zone gets one offending snippet, linted in
// memory under a path inside the zone, and must be refused by the rule that guards it. A snippet
// that is allowed (the engine's Node side reading files) must pass, so the rules are not simply
// refusing everything.
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The repository's config as it is. */
let eslint: ESLint;
/**
 * The same config without import-x/no-cycle, for the probes: a zone-probe.ts file exists nowhere, so
 * nothing imports it and no cycle can pass through it, yet the cycle rule would walk the whole module
 * graph behind each probe's import (the app's or the server's: most of this file's CPU time). Every
 * other rule, the zones among them, is the repository's own.
 */
let probeLint: ESLint;

beforeAll(async () => {
  eslint = new ESLint({ cwd: ROOT });
  probeLint = new ESLint({ cwd: ROOT, overrideConfig: { rules: { 'import-x/no-cycle': 'off' } } });
  // The first lint loads the parsers and plugins (seconds on a busy machine): not part of any test.
  await probeLint.lintText('export {};\n', { filePath: path.join(ROOT, 'src/engine/zone-probe.ts') });
}, 120_000);

/** Rule ids ESLint reports for `source` as if it were the file `file` (relative to the root). */
async function rulesFor(file: string, source: string): Promise<string[]> {
  // A real file of the repository is linted with the whole config, the cycle rule included.
  const linter = path.basename(file) === 'zone-probe.ts' ? probeLint : eslint;
  const [result] = await linter.lintText(source, { filePath: path.join(ROOT, file) });
  return result!.messages.map((message) => message.ruleId ?? message.message);
}

const importing = (specifier: string) =>
  `import * as imported from '${specifier}';\nexport const used = imported;\n`;

// Each lint walks the module graph for the cycle rule: 10 s on a quiet machine, over 40 s seen while
// end-to-end runs shared its two cores. A deadline, not a speed check.
describe('import zones', { timeout: 120_000 }, () => {
  it.each([
    ['src/engine/zone-probe.ts', '../app/main', 'engine imports the app'],
    ['src/engine/zone-probe.ts', '../renderers', 'engine imports the renderers'],
    ['src/engine/zone-probe.ts', '../../server/app', 'engine imports the server'],
    ['src/engine/zone-probe.ts', '../../codegen/check-schemas', 'engine imports codegen'],
    ['src/renderers/zone-probe.ts', '../app/main', 'renderers import the app'],
    ['src/renderers/zone-probe.ts', '../../server/app', 'renderers import the server'],
    ['server/zone-probe.ts', '../src/renderers', 'server imports the renderers'],
    ['server/zone-probe.ts', '../src/app/main', 'server imports the app'],
    ['server/zone-probe.ts', '../tests/bench/form-latency', 'server imports tests/'],
    ['server/platform/zone-probe.ts', '../../codegen/check-schemas', 'server imports codegen'],
    ['src/app/zone-probe.ts', '../../codegen/check-schemas', 'app imports codegen'],
    ['src/engine/zone-probe.ts', '../../tests/bench/form-latency', 'engine imports tests/'],
    ['codegen/zone-probe.ts', '../tests/bench/form-latency', 'codegen imports tests/'],
  ])('%s importing %s is refused (%s)', async (file, specifier) => {
    expect(await rulesFor(file, importing(specifier))).toContain('import-x/no-restricted-paths');
  });

  it.each(['react', 'react-dom/client', 'node:fs', 'fs', 'path'])(
    'the engine outside src/engine/node/ may not import %s',
    async (specifier) => {
      expect(await rulesFor('src/engine/zone-probe.ts', importing(specifier))).toContain(
        'no-restricted-imports',
      );
    },
  );

  it.each([
    ['src/app/features/workspace/zone-probe.ts', '../profile/settings-page', 'one feature imports another'],
    [
      'src/app/features/landing/zone-probe.ts',
      '../workspace/outputs/output-rules',
      'a feature reaches into another',
    ],
    [
      'src/app/features/workspace/outputs/zone-probe.ts',
      '../../applications/applications-browser',
      'a nested file',
    ],
    [
      'src/app/session/zone-probe.ts',
      '../features/workspace/workspace-page',
      'a shared layer imports a feature',
    ],
    ['src/app/api/zone-probe.ts', '../pages/profile-page', 'a shared layer imports a page'],
    ['src/app/components/zone-probe.ts', '../app', 'a shared layer imports the app shell'],
    ['src/app/features/profile/zone-probe.ts', '../../pages/profile-page', 'a feature imports a page'],
  ])('%s importing %s is refused (%s)', async (file, specifier) => {
    expect(await rulesFor(file, importing(specifier))).toContain('import-x/no-restricted-paths');
  });

  it('a feature may import itself and the shared layers; pages compose features', async () => {
    const workspace = 'src/app/features/workspace/outputs/zone-probe.ts';
    expect(await rulesFor(workspace, importing('../workspace-page'))).toEqual([]);
    expect(await rulesFor(workspace, importing('../../../session/auth-context'))).toEqual([]);
    expect(await rulesFor(workspace, importing('../../../api/outputs'))).toEqual([]);
    expect(
      await rulesFor('src/app/pages/zone-probe.ts', importing('../features/workspace/workspace-page')),
    ).toEqual([]);
  });

  it.each([
    ['server/platform/zone-probe.ts', '../outputs/outputs-service', 'the base layer imports a feature'],
    ['server/db/zone-probe.ts', '../services', 'the base layer imports the composition root'],
    ['server/outputs/zone-probe.ts', '../routes', 'a feature imports the composition root'],
    ['server/outputs/zone-probe.ts', '../app', 'a feature imports the app'],
    [
      'server/outputs/zone-probe.ts',
      '../applications/applications-routes',
      "a feature imports another's routes",
    ],
    ['server/predict/zone-probe.ts', '../auth/access-tokens', "a feature imports another's internals"],
    [
      'server/jobs/zone-probe.ts',
      '../predict/predict-service',
      'a feature imports one that declares nothing',
    ],
  ])('server: %s importing %s is refused (%s)', async (file, specifier) => {
    expect(await rulesFor(file, importing(specifier))).toContain('import-x/no-restricted-paths');
  });

  it('a server feature may import itself, the base layer and what other features declare', async () => {
    const outputs = 'server/outputs/zone-probe.ts';
    expect(await rulesFor(outputs, importing('./output-detail'))).toEqual([]);
    expect(await rulesFor(outputs, importing('../platform/reply-schemas'))).toEqual([]);
    expect(await rulesFor(outputs, importing('../jobs/job-result'))).toEqual([]);
    expect(await rulesFor(outputs, importing('../config'))).toEqual([]);
    expect(await rulesFor('server/routes.ts', importing('./outputs/outputs-routes'))).toEqual([]);
  });

  it("the engine's Node side may read files, and the server may use the engine", async () => {
    expect(await rulesFor('src/engine/node/zone-probe.ts', importing('node:fs'))).toEqual([]);
    expect(await rulesFor('server/zone-probe.ts', importing('../src/engine/node/load-schemas'))).toEqual([]);
  });

  it('an import cycle is refused', async () => {
    // pointer.ts is re-exported by the engine's index; importing the index back closes a cycle.
    expect(await rulesFor('src/engine/pointer.ts', importing('./index'))).toContain('import-x/no-cycle');
  });

  it('an import the resolver cannot follow is refused (so no zone is escaped by a typo)', async () => {
    expect(await rulesFor('src/engine/zone-probe.ts', importing('./no-such-module'))).toContain(
      'import-x/no-unresolved',
    );
  });
});
