// npm run demo:export [-- --out <dir>]
//
// Writes the landing page's demo data (server/demo-data/published/ by default) from the completed
// outputs of the example applications in the configured database (DATABASE_URL, or the embedded
// PGlite under DATA_DIR: stop the server first, PGlite allows one process). Never edit the files
// by hand: run the example applications, then this script.
import { loadRegistry } from '../../src/engine/node/load-schemas';
import { loadConfig } from '../config';
import { openDatabase } from '../db/database';
import { exportDemoData } from './demo-data-export';
import { PUBLISHED_DIR } from './demo-data-store';

const outIndex = process.argv.indexOf('--out');
const outDir = outIndex > 0 ? process.argv[outIndex + 1]! : PUBLISHED_DIR;

const db = await openDatabase(loadConfig());
try {
  const report = await exportDemoData(db, loadRegistry(), outDir);
  if (report.nothing) console.log(report.nothing);
  for (const { problemId, applicationId, outputIds } of report.exported) {
    console.log(`${problemId}: application ${applicationId}, outputs ${outputIds.join(', ')} -> ${outDir}`);
  }
} finally {
  await db.close();
}
