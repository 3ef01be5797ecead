// JSON Pointer (RFC 6901) helpers on plain objects. Pure; `setPointer` and `removePointer` mutate
// the object they are given (use them on drafts or fresh copies).

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`Invalid JSON pointer: ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function formatPointer(segments: readonly string[]): string {
  return segments.map((s) => '/' + s.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
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
