import pino from 'pino';
import { parseTokenKey } from './accounts/token-cipher';
import { buildApp } from './app';
import { bootstrapAdmin } from './auth/bootstrap-admin';
import { ConfigError, loadConfig, prepareDataDir } from './config';
import { openDatabase } from './db/database';
import { migrate } from './db/migrate';
import { onTerminationSignal, shutDownGracefully } from './platform/graceful-shutdown';
import { createServices } from './services';

/** `make run`: validate the configuration, migrate, make sure an admin exists, serve app and API. */
async function main() {
  let config;
  try {
    config = prepareDataDir(loadConfig());
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const logger = pino({
    level: config.logLevel,
    // A user's IBM Quantum token (a run's body, the form's app_data) is a secret like a password.
    redact: [
      'req.headers.authorization',
      'req.headers.cookie',
      'body.password',
      '*.actual_quantum_device_token',
      '*.custom_ibm_token',
      '*.ibm_token',
    ],
  });
  const db = await openDatabase(config);
  const applied = await migrate(db);
  if (applied.length) logger.info({ applied }, 'database migrated');
  const admin = await bootstrapAdmin(db, config);
  if (admin.created) {
    // Printed once, on the console only: the password is never logged or stored in clear.
    console.log(`\nFirst admin account created: ${admin.email}`);
    if (admin.generatedPassword) console.log(`Generated password (shown once): ${admin.generatedPassword}\n`);
  }
  const services = createServices(config, db, logger);
  // The worker runtime check (`python -m qmlstudio_worker health`: imports numpy, torch, qiskit; 5 s
  // with the bytecode cache, 14 s or more on a fresh venv) runs beside the start: the server listens
  // without waiting for it. Meanwhile /api/health says "not checked yet" and jobs stay Queued; a
  // failed check fails the jobs with its reason until a later check (every 30 s) passes.
  services.runtime.onChange((result, previous) => {
    if (result.ok) {
      logger.info(
        { versions: result.versions },
        previous ? 'the worker runtime starts again: jobs run' : 'worker runtime ok',
      );
      return;
    }
    logger.error({ error: result.error }, 'the worker runtime does not start: jobs will fail');
    console.error(
      `\nThe worker's Python does not start (${config.workerPython} -m qmlstudio_worker health): ${result.error}\n` +
        'Jobs end Failed with this reason until a check passes (checked again every 30 s); see GET /api/health.\n',
    );
  });
  void services.runtime.start();
  // Job rows written before custom tokens were sealed kept them in clear: sealed now, under the data
  // directory's lasting key only (a key made up for this process would lose them at the next start).
  if (parseTokenKey(config.tokenEncryptionKey)) {
    const sealed = await services.repositories.jobs.sealClearTokens();
    if (sealed) logger.info({ rows: sealed }, 'custom IBM tokens kept in clear by older job rows: sealed');
  }
  // With the in-process queue nothing survives a restart; with BullMQ, jobs live on in Redis and
  // may be running on other machines, so they are left alone.
  if (services.queue.mode === 'in-process') await services.jobs.recoverAfterRestart();
  // The landing page's examples run in the background, behind every user's job.
  if (config.demoResults === 'on') {
    const demo = await services.demoRuns.startAndRetry();
    if (demo.queued.length) logger.info({ queued: demo.queued }, 'landing example runs queued');
  }
  const app = await buildApp(services, { logger });
  onTerminationSignal(async (signal) => {
    logger.info({ signal }, 'shutting down: stopping the jobs running here');
    await shutDownGracefully(services, app, logger);
  });
  await app.listen({ port: config.port, host: config.host });
  console.log(
    `QML Studio is up on ${config.publicUrl} (database: ${db.kind}, queue: ${services.queue.mode}); OpenAPI at ${config.publicUrl}/api/openapi.json`,
  );
  // The browser's validators take seconds to write: now, rather than while the first page waits for them.
  setImmediate(() => void services.schemaFiles.validators);
}

void main();
