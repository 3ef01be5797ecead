// Engine helpers codegen uses (kept in one place so codegen imports the engine's public API only).
export { declaredFieldNames, firstDeclaration, hasFields, isPlainObject } from '../src/engine';
