// npm run schemas:check [-- <schemas dir> [<samples dir>]]
// Validates every schema file against its meta-schema and cross-checks the problems: sections and
// fields, defaults and options, conditions, messages, mapping pointers, the job-body schema and
// the example (it must validate and map to a valid job body), then the examples against the shipped
// sample files (samples/manifest.json: rows, columns, selected columns, labels). Prints file, JSON
// pointer, reason.

import path from 'node:path';

import {
  checkExamplesAgainstSamples,
  checkSchemaSources,
  formatIssues,
  type SampleManifest,
} from '../src/engine';
import { DEFAULT_SAMPLES_DIR, loadSampleManifest } from '../src/engine/node/load-sample-manifest';
import {
  DEFAULT_SCHEMAS_DIR,
  loadSchemaSources,
  SchemaFileParseError,
} from '../src/engine/node/load-schemas';

function main(): number {
  const dir = process.argv[2] ? path.resolve(process.argv[2]) : DEFAULT_SCHEMAS_DIR;
  let sources;
  try {
    sources = loadSchemaSources(dir);
  } catch (err) {
    if (err instanceof SchemaFileParseError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  const samplesDir = process.argv[3] ? path.resolve(process.argv[3]) : DEFAULT_SAMPLES_DIR;
  let manifest: SampleManifest;
  try {
    manifest = loadSampleManifest(samplesDir);
  } catch (err) {
    console.error(`${path.join(samplesDir, 'manifest.json')}: ${(err as Error).message}`);
    return 1;
  }
  let issues = checkSchemaSources(sources);
  // The examples against the real files, once the schemas themselves hold together.
  if (issues.length === 0) issues = checkExamplesAgainstSamples(sources, manifest);
  const problems = Object.keys(sources).filter((f) => f.startsWith('problems/')).length;
  if (issues.length > 0) {
    console.error(
      formatIssues(issues.map((i) => ({ ...i, file: path.join(path.relative(process.cwd(), dir), i.file) }))),
    );
    console.error(`\n${issues.length} problem(s) found in ${dir}`);
    return 1;
  }
  console.log(`schemas ok: ${Object.keys(sources).length} files, ${problems} problem files (${dir})`);
  return 0;
}

process.exitCode = main();
