// A spec message the app shows from several places is written once, in platform.json's messages table,
// and read from there; a second copy as a literal in the app's sources would drift from it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import platformJson from '../../schemas/platform.json';

const ROOT = path.resolve(import.meta.dirname, '../..');

function appSources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) appSources(rel, out);
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(rel);
  }
  return out;
}

const APP_FILES = appSources('src/app');
const writing = (text: string) =>
  APP_FILES.filter((file) => readFileSync(path.join(ROOT, file), 'utf8').includes(text)).sort();

describe('the not-logged-in message has one home', () => {
  it('scans the app sources it claims to', () => {
    expect(APP_FILES).toContain('src/app/api/use-run-application.ts');
    expect(APP_FILES).toContain('src/app/features/workspace/predict/predict-panel.tsx');
  });

  it("platform.json holds the spec's words", () => {
    expect(platformJson.messages.notLoggedIn).toBe('User is not logged in!');
  });

  it('no app source writes it as a literal (the session layer reads it from platform.json)', () => {
    expect(writing(platformJson.messages.notLoggedIn)).toEqual([]);
  });

  it('the session layer is where the app takes it from', () => {
    const importers = APP_FILES.filter((file) =>
      /from '[./]*session\/not-logged-in'/.test(readFileSync(path.join(ROOT, file), 'utf8')),
    );
    expect(importers.length).toBeGreaterThanOrEqual(4);
  });
});
