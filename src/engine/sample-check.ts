// The examples against the shipped sample files (samples/manifest.json): an example on a shipped
// sample must state the file's real row count and columns, select only columns the file has, and
// stay valid with the file's row count; a problem's sample must carry the manifest's label. Part of
// `npm run schemas:check`; every finding names the problem file, a JSON pointer and the reason.

import { declaredFieldNames, firstDeclaration } from './conditions';
import { fieldOptions } from './forms';
import { deepEqual, isPlainObject } from './json';
import { createRegistry, type SchemaSources } from './registry';
import type { SampleManifest, SampleManifestEntry } from './sample-manifest';
import type { Problem, SchemaIssue } from './types';
import { validateAppData } from './validate';

const MANIFEST = 'samples/manifest.json';

const baseName = (url: string): string => url.split(/[\\/]/).pop() ?? url;

/** The sample file an example's dataset names: its url/file, else its sample id's file. */
function exampleFile(problem: Problem): { file: string; pointer: string } | undefined {
  const dataset = problem.example.appData.dataset;
  if (!isPlainObject(dataset)) return undefined;
  for (const key of ['url', 'file'] as const) {
    const value = dataset[key];
    if (typeof value === 'string' && value) {
      return { file: baseName(value), pointer: `/example/appData/dataset/${key}` };
    }
  }
  const sample = problem.dataset.samples.find((s) => s.id === dataset.sample);
  return sample ? { file: sample.file, pointer: '/example/appData/dataset/sample' } : undefined;
}

/**
 * Checks each problem file's samples and example against the manifest. Call it once the schemas
 * themselves pass (it builds the registry). Non-CSV samples (the brain tumor .mat file) are not
 * shipped in samples/ yet and are not checked; a listed problem's CSV sample must be shipped.
 */
export function checkExamplesAgainstSamples(sources: SchemaSources, manifest: SampleManifest): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const registry = createRegistry(sources);
  const byFile = new Map<string, SampleManifestEntry>(manifest.samples.map((s) => [s.file, s]));
  for (const [file, json] of Object.entries(sources)) {
    if (!file.startsWith('problems/') || !isPlainObject(json) || typeof json.id !== 'string') continue;
    const problem = registry.findProblem(json.id);
    if (!problem) continue;
    const report = (pointer: string, reason: string) => issues.push({ file, pointer, reason });

    problem.dataset.samples.forEach((sample, i) => {
      const entry = byFile.get(sample.file);
      if (!entry) {
        if (problem.listed && sample.file.endsWith('.csv')) {
          report(
            `/dataset/samples/${i}/file`,
            `"${sample.file}" is not a shipped sample (not in ${MANIFEST})`,
          );
        }
      } else if (entry.label !== sample.label) {
        report(
          `/dataset/samples/${i}/label`,
          `"${sample.label}" is not ${MANIFEST}'s label "${entry.label}"`,
        );
      }
    });

    const named = exampleFile(problem);
    const entry = named && byFile.get(named.file);
    if (!named || !entry) continue;
    const dataset = problem.example.appData.dataset;
    const sampleDef = problem.dataset.samples.find((s) => isPlainObject(dataset) && s.id === dataset.sample);
    if (sampleDef && sampleDef.file !== entry.file) {
      report(named.pointer, `names ${entry.file} but sample "${sampleDef.id}" is ${sampleDef.file}`);
    }
    const context = problem.example.context ?? {};
    if (context.rowCount !== entry.rows) {
      report(
        '/example/context/rowCount',
        `${String(context.rowCount ?? 'missing')}, but ${entry.file} has ${entry.rows} rows (${MANIFEST})`,
      );
    }
    if (!deepEqual(context.columns, entry.columns)) {
      report(
        '/example/context/columns',
        `${JSON.stringify(context.columns ?? null)}, but ${entry.file} has the columns ` +
          `${JSON.stringify(entry.columns)} (${MANIFEST})`,
      );
    }
    // Selected columns must be columns of the real file (not only of the stated context).
    const real = { rowCount: entry.rows, columns: entry.columns };
    for (const key of problem.formKeys) {
      const value = problem.example.appData[key];
      if (!isPlainObject(value)) continue;
      for (const name of declaredFieldNames(problem.forms[key]!.schema)) {
        const schema = firstDeclaration(problem.forms[key]!.schema, name)!;
        if (schema['x-field']?.options !== 'columns' || value[name] === undefined) continue;
        const options = (fieldOptions(schema, real, problem.platform) ?? []).map((o) => o.value);
        const chosen = Array.isArray(value[name]) ? (value[name] as unknown[]) : [value[name]];
        for (const c of chosen) {
          if (!options.includes(c as string)) {
            report(
              `/example/appData/${key}/${name}`,
              `"${String(c)}" is not a column of ${entry.file} (${MANIFEST})`,
            );
          }
        }
      }
    }
    // Row-count limits (index ranges and the like) against the file's real rows.
    for (const e of validateAppData(problem, problem.example.appData, real).errors) {
      report(`/example/appData${e.path}`, `with ${entry.file}'s ${entry.rows} rows: ${e.message}`);
    }
  }
  return issues;
}
