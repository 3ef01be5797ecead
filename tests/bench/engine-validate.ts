// Engine latency after one field change, on the largest problem (most declared fields):
// setFieldValue (branch defaults) + getFormState (validation, both tabs' sections, pipeline
// status). Prints median and p95 in milliseconds. Run: npx tsx tests/bench/engine-validate.ts [iterations]

import { performance } from 'node:perf_hooks';

import { loadRegistry } from '../../src/engine/node/load-schemas';
import {
  createExampleAppData,
  declaredFieldNames,
  firstDeclaration,
  getFormState,
  hasFields,
  precompileProblem,
  setFieldValue,
  type AppData,
  type FieldSchema,
  type Problem,
} from '../../src/engine';

function countFields(schema: FieldSchema): number {
  return declaredFieldNames(schema).reduce((n, name) => {
    const field = firstDeclaration(schema, name) ?? {};
    return n + 1 + (hasFields(field) ? countFields(field) : 0);
  }, 0);
}

/** Declared fields of all forms, nested ones (splitter, device picker) included. */
function fieldCount(problem: Problem): number {
  return problem.formKeys.reduce((n, key) => n + countFields(problem.forms[key]!.schema as FieldSchema), 0);
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)]!;
}

function main(): void {
  const iterations = Number(process.argv[2] ?? 2000);
  const registry = loadRegistry();
  const problem = [...registry.problems].sort((a, b) => fieldCount(b) - fieldCount(a))[0]!;
  const { appData, context } = createExampleAppData(problem);

  const compileStart = performance.now();
  precompileProblem(problem);
  const compileMs = performance.now() - compileStart;

  // Alternate edits that flip conditions as well as plain values.
  const modelType = problem.forms.model_configurations.schema.properties?.model_type
    ? 'model_type'
    : 'modelType';
  const types = (problem.forms.model_configurations.schema.properties?.[modelType]?.enum ?? []) as string[];
  const edits: Array<{ path: string; value: unknown }> = [];
  for (let i = 0; i < 10; i++) edits.push({ path: '/model_configurations/epochs', value: 20 + 10 * (i % 5) });
  for (const t of types) edits.push({ path: `/model_configurations/${modelType}`, value: t });

  let data: AppData = appData;
  const samples: number[] = [];
  for (let i = 0; i < iterations + 200; i++) {
    const edit = edits[i % edits.length]!;
    const start = performance.now();
    data = setFieldValue(problem, data, edit.path, edit.value, context);
    const state = getFormState(problem, data, context);
    const elapsed = performance.now() - start;
    if (state.sections.model.length === 0) throw new Error('no sections');
    if (i >= 200) samples.push(elapsed); // warm-up excluded
  }
  samples.sort((a, b) => a - b);
  const median = percentile(samples, 50);
  const p95 = percentile(samples, 95);
  console.log(
    `engine-validate: problem=${problem.id} (${fieldCount(problem)} fields) iterations=${iterations} ` +
      `compile=${compileMs.toFixed(1)}ms median=${median.toFixed(3)}ms p95=${p95.toFixed(3)}ms`,
  );
}

main();
