// Messages live once, in schemas/platform.json: the workspace's dataset kinds, predict and outputs read them from the problem (problem.platform.messages) and keep no copy of their own (a copy
// drifts when the text is edited in the schema file, as 'Invalid URL. ...' once did here).

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../../../engine/node/load-schemas';

const DIRS = ['dataset', 'predict', 'outputs'].map((dir) =>
  path.join(REPO_ROOT, 'src/app/features/workspace', dir),
);

/** The non-test sources under `dir`, its subfolders included. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name))
    .map((name) => path.join(dir, name));

describe('workspace dataset and outputs modules and platform messages', () => {
  it('no source quotes a message of platform.json', () => {
    const platform = JSON.parse(readFileSync(path.join(REPO_ROOT, 'schemas/platform.json'), 'utf8')) as {
      messages: Record<string, string>;
    };
    const texts = Object.values(platform.messages);
    expect(texts).toContain('Invalid URL. Please link to your CSV file URL.');
    const copies: string[] = [];
    for (const file of DIRS.flatMap(sources)) {
      const source = readFileSync(file, 'utf8');
      for (const text of texts)
        for (const quote of ["'", '"', '`'])
          if (source.includes(quote + text + quote))
            copies.push(`${path.relative(REPO_ROOT, file)}: ${text}`);
    }
    expect(copies).toEqual([]);
  });
});
