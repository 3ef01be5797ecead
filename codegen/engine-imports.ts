// Engine helpers codegen uses (kept in one place so codegen imports the engine's public API only).
export { declaredFieldNames, firstDeclaration, hasFields } from '../src/engine';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
