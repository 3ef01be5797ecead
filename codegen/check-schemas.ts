// npm run schemas:check [-- <schemas dir>]
// Validates every schema file against its meta-schema and cross-checks the problems: sections and
// fields, defaults and options, conditions, messages, mapping pointers, the job-body schema and
// the example (it must validate and map to a valid job body). Prints file, JSON pointer, reason.

import path from 'node:path';

import { checkSchemaSources, formatIssues } from '../src/engine';
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
  const issues = checkSchemaSources(sources);
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
