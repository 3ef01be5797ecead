// PennyLane is a benchmark reference (tests/bench/requirements-pennylane.txt, its own venv), never a
// dependency of the product's worker; and its pins must not bring a torch of their own.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function requirementNames(file: string): string[] {
  return readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line.length > 0 && !line.startsWith('-'))
    .map((line) =>
      line
        .split(/[=<>!~[;\s]/)[0]
        .toLowerCase()
        .replace(/_/g, '-'),
    );
}

describe('benchmark-only requirements stay out of the worker', () => {
  it('reads the worker lock it claims to', () => {
    expect(requirementNames('worker/requirements.lock')).toContain('torch');
  });

  it('no pennylane package is in worker/requirements.lock', () => {
    expect(
      requirementNames('worker/requirements.lock').filter((name) => name.startsWith('pennylane')),
    ).toEqual([]);
  });

  it('the PennyLane bench requirements pin every package exactly and pin no torch', () => {
    const file = 'tests/bench/requirements-pennylane.txt';
    const lines = readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter((line) => line.length > 0);
    expect(lines.filter((line) => !/^[A-Za-z0-9_.-]+==[A-Za-z0-9_.+-]+$/.test(line))).toEqual([]);
    expect(requirementNames(file)).toContain('pennylane');
    expect(requirementNames(file)).not.toContain('torch');
  });
});
