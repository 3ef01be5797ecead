// Server code reads a job's result through the result contract (server/jobs/job-result.ts), never by
// pulling untyped keys out of the stored JSON in SQL, where a renamed or malformed field passes unseen.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function serverSources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) serverSources(rel, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(rel);
  }
  return out;
}

const FILES = serverSources('server');

describe('server code reads results through the typed contract', () => {
  it('scans the server sources it claims to', () => {
    expect(FILES).toContain('server/predict/predict-service.ts');
    expect(FILES).toContain('server/inference/inference-service.ts');
  });

  it("no server source extracts a result field as text in SQL (result->>'key')", () => {
    const digging = FILES.filter((file) => /result\s*->>/.test(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(digging).toEqual([]);
  });
});
