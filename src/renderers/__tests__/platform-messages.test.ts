// Messages live once, in schemas/platform.json; renderers read them from the registry and never
// keep a copy of their own (a copy drifts when the text is edited in the schema file).

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../../engine/node/load-schemas';

const RENDERERS = path.join(REPO_ROOT, 'src/renderers');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__tests__' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe('renderers and platform messages', () => {
  it('no renderer source quotes a message of platform.json', () => {
    const platform = JSON.parse(readFileSync(path.join(REPO_ROOT, 'schemas/platform.json'), 'utf8')) as {
      messages: Record<string, string>;
    };
    const texts = Object.values(platform.messages);
    const copies: string[] = [];
    for (const file of sourceFiles(RENDERERS)) {
      const source = readFileSync(file, 'utf8');
      for (const text of texts) {
        for (const quote of ["'", '"', '`']) {
          if (source.includes(quote + text + quote))
            copies.push(`${path.relative(REPO_ROOT, file)}: ${text}`);
        }
      }
    }
    expect(copies).toEqual([]);
  });
});
