import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedValidators } from './validators-cache';

describe("the browser's validators module, kept on disk between starts", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'qml-validators-'));
    dirs.push(dir);
    return path.join(dir, 'cache');
  };
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('is written once for the same schema files and read back after; other files write it anew', () => {
    const dir = tempDir();
    let writes = 0;
    const write = (text: string) => () => {
      writes += 1;
      return text;
    };
    expect(cachedValidators(Buffer.from('files A'), write('module A'), dir)).toBe('module A');
    expect(cachedValidators(Buffer.from('files A'), write('never asked'), dir)).toBe('module A');
    expect(writes).toBe(1);
    expect(cachedValidators(Buffer.from('files B'), write('module B'), dir)).toBe('module B');
    expect(writes).toBe(2);
    // whole files only: no partial file is left beside them
    expect(
      readdirSync(dir)
        .sort()
        .every((name) => name.endsWith('.js')),
    ).toBe(true);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it('still answers the written module when the cache cannot be written', () => {
    const occupied = tempDir();
    writeFileSync(occupied, 'a file where the cache folder would be');
    expect(cachedValidators(Buffer.from('files'), () => 'module', path.join(occupied, 'cache'))).toBe(
      'module',
    );
    expect(existsSync(path.join(occupied, 'cache'))).toBe(false);
  });
});
