import pino from 'pino';
import { loadConfig, prepareDataDir } from './config';
import { openDatabase } from './db/database';
import { migrate } from './db/migrate';
import { onTerminationSignal, shutDownGracefully } from './platform/graceful-shutdown';
import { createServices } from './services';

/**
 * `npm run worker`: a scale-out queue worker. It takes jobs from BullMQ (REDIS_URL), records them in
 * the shared PostgreSQL database (DATABASE_URL) and reads and writes files through the shared file
 * store (STORAGE_BACKEND=s3); run as many as there are machines.
 */
async function main() {
  const config = prepareDataDir(loadConfig());
  if (!config.redisUrl || !config.databaseUrl) {
    console.error(
      'npm run worker needs REDIS_URL and DATABASE_URL: it shares the queue and database with the server',
    );
    process.exit(2);
  }
  const logger = pino({ level: config.logLevel });
  const db = await openDatabase(config);
  await migrate(db);
  const services = createServices(config, db, logger, { runWorkers: true });
  onTerminationSignal(async (signal) => {
    logger.info({ signal }, 'shutting down: stopping the jobs running here');
    await shutDownGracefully(services, null, logger);
  });
  logger.info(
    { concurrency: config.workerConcurrency, storage: config.storageBackend },
    'queue worker started',
  );
  if (config.storageBackend === 'local') {
    // Right on the server's own machine only: elsewhere uploads, fetched datasets and models are missing.
    logger.warn(
      'STORAGE_BACKEND is local: this worker reads and writes files in its own DATA_DIR; on another machine than the server set STORAGE_BACKEND=s3 and the S3_* settings',
    );
  }
}

void main();
