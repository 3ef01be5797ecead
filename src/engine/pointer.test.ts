import { describe, expect, it } from 'vitest';

import {
  escapePointerSegment,
  formatPointer,
  getPointer,
  joinPointer,
  parsePointer,
  unescapePointerSegment,
} from './pointer';

describe('JSON pointer (RFC 6901)', () => {
  it('escapes "~" before "/" so a key holding both survives a round trip', () => {
    expect(escapePointerSegment('a/b')).toBe('a~1b');
    expect(escapePointerSegment('m~n')).toBe('m~0n');
    expect(escapePointerSegment('~/')).toBe('~0~1');
    expect(escapePointerSegment(3)).toBe('3');
    expect(unescapePointerSegment('~01')).toBe('~1');
    expect(unescapePointerSegment('~0~1')).toBe('~/');
  });

  it('parses and formats the examples of RFC 6901 section 5', () => {
    const doc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'm~n': 8, ' ': 7 };
    expect(getPointer(doc, '/foo/0')).toBe('bar');
    expect(getPointer(doc, '/')).toBe(0);
    expect(getPointer(doc, '/a~1b')).toBe(1);
    expect(getPointer(doc, '/m~0n')).toBe(8);
    expect(getPointer(doc, '/ ')).toBe(7);
    for (const pointer of ['', '/foo/0', '/', '/a~1b', '/m~0n', '/~01']) {
      expect(formatPointer(parsePointer(pointer))).toBe(pointer);
    }
    expect(() => parsePointer('foo')).toThrow(/Invalid JSON pointer/);
  });

  it('joins escaped tokens below an already escaped base', () => {
    expect(joinPointer('/model_configurations', 'epochs')).toBe('/model_configurations/epochs');
    expect(joinPointer('/a~1b', 'c/d', 0)).toBe('/a~1b/c~1d/0');
    expect(joinPointer('/form')).toBe('/form');
  });
});
