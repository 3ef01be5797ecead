import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/** What shutdown stops, in order (the process's services, server/services.ts). */
export interface ShutdownParts {
  queue: { close(): Promise<unknown> };
  runner: { shutdown(reason: string): Promise<unknown> };
  runtime: { stop(): Promise<unknown> };
  close(): Promise<unknown>;
}

/** How long requests under way (and event streams) get to finish before their connections are cut. */
const HTTP_GRACE_MS = 5_000;

/**
 * SIGTERM/SIGINT: stop taking requests and jobs, stop the jobs running here (their process groups,
 * recorded Failed "Server shut down"), let requests under way finish, then close the queue, the
 * event bus and the database. Jobs still waiting stay queued: the in-process queue runs them after
 * the next start, BullMQ hands them to another worker.
 */
export async function shutDownGracefully(
  services: ShutdownParts,
  app: FastifyInstance | null,
  log: FastifyBaseLogger,
  reason = 'Server shut down',
): Promise<void> {
  // Stop listening first: new connections are refused, new requests on open ones get 503.
  const httpClosed = app ? closeHttp(app) : Promise.resolve();
  // The queue stops handing out work before the runner stops what runs, so nothing starts after.
  const queueClosed = services.queue.close();
  await services.runner.shutdown(reason);
  await Promise.all([queueClosed, httpClosed]);
  await services.runtime.stop();
  await services.close();
  log.info('shut down');
}

async function closeHttp(app: FastifyInstance) {
  const timer = setTimeout(() => app.server.closeAllConnections(), HTTP_GRACE_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `shutDown` once on the first SIGTERM or SIGINT, then exits; a second signal exits at once. */
export function onTerminationSignal(shutDown: (signal: string) => Promise<void>): void {
  let started = false;
  const handle = (signal: NodeJS.Signals) => {
    if (started) process.exit(1);
    started = true;
    shutDown(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('shutdown failed', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
