import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, MODES, startStack, type TestStack } from '../test-support/harness';
import { JobRunner } from './job-runner';
import type { WorkerLauncher, WorkerLaunch } from './worker-launcher';

// Spec workspace.md section 3: "For brain tumor, output_logs holds final_metrics". A run whose result
// carries final_metrics gets a log line naming them, which the output's record (/record) lists.

/** A launcher whose "worker" prints the given protocol lines and exits with `code` (no Python involved). */
function scriptedLauncher(lines: object[], code = 0): WorkerLauncher {
  return {
    kind: 'cold',
    launch(options: WorkerLaunch) {
      const done = (async () => {
        for (const line of lines) await options.onLine?.(JSON.stringify(line));
        return { code, signal: null, stderrTail: '' };
      })();
      return { done, pid: undefined, kill: () => undefined };
    },
    close: async () => undefined,
  };
}

const FINAL_METRICS = { accuracy: 0.916666, macro_f1: 0.9, precision_glioma: 1 };

describe.each(MODES.filter((m) => m.queue === 'in-process'))('final metrics log on $database', (mode) => {
  let stack: TestStack;
  let adminId: number;
  let applicationId: number;
  beforeAll(async () => {
    if (!mode.available) return;
    stack = await startStack(mode);
    adminId = (await stack.services.repositories.users.findByEmail(ADMIN.email))!.id;
    const { rows } = await stack.services.db.query<{ id: number }>(
      `insert into applications (user_id, app_name, app_problem_id, app_data) values ($1, $2, $3, $4)
       returning id`,
      [adminId, 'Tumor run', 'brain-tumor', '{}'],
    );
    applicationId = Number(rows[0]!.id);
  });
  afterAll(async () => stack?.close());

  /** Runs one job through a JobRunner whose worker prints `lines`; returns the output's record logs. */
  async function runWith(lines: object[], code = 0) {
    const job = await stack.services.db.transaction((tx) =>
      stack.services.repositories.jobs.create(tx, {
        kind: 'brain-tumor',
        ownerId: adminId,
        params: { epochs: 1 },
        applicationId,
        appData: {},
        name: 'Tumor run #{id}',
      }),
    );
    const runner = new JobRunner(
      stack.services.repositories.jobs,
      stack.services.bus,
      { launcher: scriptedLauncher(lines, code), timeoutSeconds: 30 },
      pino({ level: 'silent' }),
    );
    await runner.run(job.id);
    const reply = await stack.app.inject({
      url: `/api/application-outputs/${job.id}/record`,
      headers: bearer(stack.adminToken),
    });
    expect(reply.statusCode).toBe(200);
    const logs = (reply.json() as { data: { output_logs: { level: string; message: string }[] } }).data
      .output_logs;
    return { id: job.id, logs };
  }

  it.skipIf(!mode.available)(
    'a Completed run whose result has final_metrics logs them before Completed',
    async () => {
      const { id, logs } = await runWith([
        { type: 'log', level: 'info', message: 'Epoch 1/1 done' },
        {
          type: 'result',
          data: {
            problem: 'brain-tumor',
            model: 'QCNN',
            model_type: 'Quantum',
            metrics: {},
            final_metrics: FINAL_METRICS,
          },
        },
      ]);
      const messages = logs.map((l) => l.message);
      const line = 'final_metrics: accuracy 0.9167, macro_f1 0.9, precision_glioma 1';
      expect(messages).toContain(line);
      // Recorded before the final status: the record reads in the order things happened.
      expect(messages.indexOf(line)).toBeLessThan(messages.indexOf('Status: Completed'));
      expect(logs.find((l) => l.message === line)!.level).toBe('info');
      // The structured values ride in the event for clients that read the event stream.
      const events = await stack.services.repositories.jobs.events(id);
      const event = events.find((e) => e.type === 'log' && e.payload.final_metrics);
      expect(event?.payload.final_metrics).toEqual(FINAL_METRICS);
    },
  );

  it.skipIf(!mode.available)(
    'a result without final_metrics, or a failed run, adds no such line',
    async () => {
      const plain = await runWith([
        {
          type: 'result',
          data: { problem: 'brain-tumor', model: 'QCNN', model_type: 'Quantum', metrics: { accuracy: 1 } },
        },
      ]);
      expect(plain.logs.some((l) => l.message.startsWith('final_metrics'))).toBe(false);
      expect(plain.logs.map((l) => l.message)).toContain('Status: Completed');
      // A worker that printed a result and then crashed ends Failed: no final metrics then.
      const failed = await runWith(
        [
          {
            type: 'result',
            data: {
              problem: 'brain-tumor',
              model: 'QCNN',
              model_type: 'Quantum',
              final_metrics: FINAL_METRICS,
            },
          },
        ],
        1,
      );
      expect(failed.logs.map((l) => l.message)).toContain('Status: Failed: The worker exited with code 1');
      expect(failed.logs.some((l) => l.message.startsWith('final_metrics'))).toBe(false);
    },
  );
});
