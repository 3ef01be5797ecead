// JSON Pointer (RFC 6901) helpers on plain objects. Pure; `setPointer` and `removePointer` mutate
// the object they are given (use them on drafts or fresh copies).

// The one home of JSON-pointer escaping in TypeScript (engine, renderers, server, codegen and tests
// import it from here; the worker has its own in qmlstudio_worker). "~" is written "~0" and "/" is
// written "~1"; "~0" and "~1" are the only escapes, so unescaping "~01" gives "~1", not "/".

/** One reference token, escaped: `a/b` -> `a~1b`, `m~n` -> `m~0n`. */
export function escapePointerSegment(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One reference token, unescaped (`~1` before `~0`, as RFC 6901 section 4 requires). */
export function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The reference tokens of a pointer (`""` is the whole document). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`Invalid JSON pointer: ${pointer}`);
  return pointer.slice(1).split('/').map(unescapePointerSegment);
}

/** A pointer from unescaped tokens: `["a/b", 0]` -> `/a~1b/0`. */
export function formatPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + escapePointerSegment(s)).join('');
}

/** A pointer below `base` (itself a pointer, already escaped): `("/form", "x/y")` -> `/form/x~1y`. */
export function joinPointer(base: string, ...segments: readonly (string | number)[]): string {
  return base + formatPointer(segments);
}

function isContainer(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function getPointer(root: unknown, pointer: string): unknown {
  let current: unknown = root;
  for (const segment of parsePointer(pointer)) {
    if (!isContainer(current)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

export function hasPointer(root: unknown, pointer: string): boolean {
  let current: unknown = root;
  for (const segment of parsePointer(pointer)) {
    if (!isContainer(current) || !Object.prototype.hasOwnProperty.call(current, segment)) return false;
    current = current[segment];
  }
  return true;
}

/** Sets a value, creating intermediate objects. */
export function setPointer(root: Record<string, unknown>, pointer: string, value: unknown): void {
  const segments = parsePointer(pointer);
  if (segments.length === 0) throw new Error('Cannot set the root');
  let current: Record<string, unknown> = root;
  for (const segment of segments.slice(0, -1)) {
    const next = current[segment];
    if (!isContainer(next)) current[segment] = {};
    current = current[segment] as Record<string, unknown>;
  }
  current[segments[segments.length - 1]!] = value;
}

export function removePointer(root: Record<string, unknown>, pointer: string): void {
  const segments = parsePointer(pointer);
  const parent = getPointer(root, formatPointer(segments.slice(0, -1)));
  if (isContainer(parent)) delete parent[segments[segments.length - 1]!];
}
