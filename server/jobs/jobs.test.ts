import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  MODES,
  readEventStream,
  startStack,
  submitSelfTest,
  waitForFinal,
  waitForRunning,
  type TestStack,
} from '../test-support/harness';
import { JOB_STATUSES } from './job-states';
import { writeFakePython } from '../test-support/fake-python';

type Event = { seq: number; type: string; payload: Record<string, unknown> };

const statuses = (events: Event[]) => events.filter((e) => e.type === 'status').map((e) => e.payload.status);

describe.each(MODES)('jobs on $database with the $queue queue', (mode) => {
  let stack: TestStack;
  beforeAll(async () => {
    // No test here is about the limit (the block below is): 20 s let the first self-test, which waits for
    // its Python's imports, time out with two test files at a time on a loaded 2-core machine.
    if (mode.available)
      stack = await startStack(mode, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '120' });
  });
  afterAll(async () => stack?.close());

  it.skipIf(!mode.available)('runs the quantum self-test through the queue and a Python worker', async () => {
    const submitted = await submitSelfTest(stack, { shots: 1024 });
    expect(submitted.status).toBe('queued');
    const { job, events } = (await waitForFinal(stack, submitted.id)) as unknown as {
      job: { status: string; result: { counts: Record<string, number> }; execution_time: number };
      events: Event[];
    };
    expect(job.status).toBe('Completed');
    const counts = job.result.counts;
    expect(Object.keys(counts).sort()).toEqual(['00', '11']);
    expect(counts['00']! + counts['11']!).toBe(1024);
    expect(counts['00']).toBeGreaterThan(400);
    expect(counts['11']).toBeGreaterThan(400);
    expect(statuses(events)).toEqual(['queued', 'running', 'Completed']);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.some((e) => e.type === 'progress' && e.payload.percent === 100)).toBe(true);
    expect(events.some((e) => e.type === 'chart')).toBe(true);
    expect(events.some((e) => e.type === 'log')).toBe(true);
    expect(job.execution_time).toBeGreaterThan(0);
  });

  it.skipIf(!mode.available)('streams the events live as server-sent events until the job ends', async () => {
    const submitted = await submitSelfTest(stack, { shots: 256, delay_seconds: 1 });
    const text = await readEventStream(stack, `/api/jobs/${submitted.id}/events`, stack.adminToken);
    const events = text
      .split('\n\n')
      .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
      .filter((line): line is string => Boolean(line))
      .map((line) => JSON.parse(line.slice(6)) as Event);
    expect(statuses(events)).toEqual(['queued', 'running', 'Completed']);
    expect(events.filter((e) => e.type === 'progress').length).toBeGreaterThanOrEqual(3);
    const result = events.find((e) => e.type === 'result')!;
    const counts = (result.payload.data as { counts: Record<string, number> }).counts;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(256);
    // The stream carried every recorded event once, in order: what a client that watched live saw
    // is what the job's record holds.
    const recorded = (await waitForFinal(stack, submitted.id)).events as Event[];
    expect(events.map((e) => [e.seq, e.type])).toEqual(recorded.map((e) => [e.seq, e.type]));
  });

  it.skipIf(!mode.available)(
    'stops a running job: the process is killed and Manual Stop recorded',
    async () => {
      const submitted = await submitSelfTest(stack, { delay_seconds: 60 });
      const pid = await waitForRunning(stack, submitted.id);
      const reply = await stack.app.inject({
        method: 'POST',
        url: `/api/jobs/${submitted.id}/stop`,
        headers: bearer(stack.adminToken),
      });
      expect(reply.statusCode).toBe(202);
      const { job, events } = await waitForFinal(stack, submitted.id, 15_000);
      expect(job.status).toBe('Manual Stop');
      expect(statuses(events as Event[])).toEqual(['queued', 'running', 'Manual Stop']);
      expect(() => process.kill(pid, 0)).toThrow();
    },
  );

  it.skipIf(!mode.available)('stops a queued job before it starts', async () => {
    const running = await submitSelfTest(stack, { delay_seconds: 60 });
    await waitForRunning(stack, running.id);
    const queued = await submitSelfTest(stack, {});
    await stack.app.inject({
      method: 'POST',
      url: `/api/jobs/${queued.id}/stop`,
      headers: bearer(stack.adminToken),
    });
    const { job, events } = await waitForFinal(stack, queued.id, 5_000);
    expect(job.status).toBe('Manual Stop');
    expect(statuses(events as Event[])).toEqual(['queued', 'Manual Stop']);
    await stack.app.inject({
      method: 'POST',
      url: `/api/jobs/${running.id}/stop`,
      headers: bearer(stack.adminToken),
    });
    expect((await waitForFinal(stack, running.id, 15_000)).job.status).toBe('Manual Stop');
  });

  it.skipIf(!mode.available)('records Failed with the reason when the worker crashes', async () => {
    const submitted = await submitSelfTest(stack, { delay_seconds: 60 });
    const pid = await waitForRunning(stack, submitted.id);
    process.kill(pid, 'SIGKILL'); // what the kernel's out-of-memory killer does
    const { job, events } = (await waitForFinal(stack, submitted.id, 15_000)) as unknown as {
      job: { status: string; error: string };
      events: Event[];
    };
    expect(job.status).toBe('Failed');
    expect(job.error).toContain('SIGKILL');
    expect(events.at(-1)!.payload).toMatchObject({ status: 'Failed', reason: job.error });
  });
});

describe.each(MODES.filter((m) => m.queue === 'in-process'))(
  'job limits and ownership on $database',
  (mode) => {
    let stack: TestStack;
    beforeAll(async () => {
      // The stand-in Python (fake-python.ts: it reports progress, then works for ten minutes): what is
      // checked here is the server's (the limit, ownership, recovery, the stream's `after`), and a real
      // Python worker runs the self-test in the block above. No preloaded Python imports torch and
      // qiskit for jobs the 3 s limit stops anyway, and every run ends by the limit, not by the
      // machine's speed against it.
      if (mode.available)
        stack = await startStack(mode, {
          WORKER_TIMEOUT_SECONDS: '3',
          WORKER_PYTHON: writeFakePython().python,
          WORKER_WARM: 'false',
        });
    });
    afterAll(async () => stack?.close());

    it.skipIf(!mode.available)('records Failed when a job exceeds its time limit', async () => {
      const submitted = await submitSelfTest(stack, { delay_seconds: 60 });
      const { job } = (await waitForFinal(stack, submitted.id, 20_000)) as unknown as {
        job: { status: string; error: string };
      };
      expect(job.status).toBe('Failed');
      expect(job.error).toBe('The job exceeded its time limit of 3 s and was stopped');
    });

    it.skipIf(!mode.available)(
      'hides a job from other users and refuses the self-test to non-admins',
      async () => {
        const submitted = await submitSelfTest(stack, { shots: 16 });
        const other = await stack.userToken('someone@example.com');
        const seen = await stack.app.inject({ url: `/api/jobs/${submitted.id}`, headers: bearer(other) });
        expect(seen.statusCode).toBe(404);
        const stop = await stack.app.inject({
          method: 'POST',
          url: `/api/jobs/${submitted.id}/stop`,
          headers: bearer(other),
        });
        expect(stop.statusCode).toBe(404);
        const refused = await stack.app.inject({
          method: 'POST',
          url: '/api/diagnostics/self-test',
          headers: bearer(other),
          payload: {},
        });
        expect(refused.statusCode).toBe(403);
        const anonymous = await stack.app.inject({ url: `/api/jobs/${submitted.id}` });
        expect(anonymous.statusCode).toBe(401);
        await waitForFinal(stack, submitted.id);
      },
    );

    it.skipIf(!mode.available)(
      'after a restart, fails the jobs that were running and queues the waiting ones again',
      async () => {
        const admin = (await stack.services.auth.authenticate(stack.adminToken))!.user;
        const interrupted = await stack.services.db.transaction((tx) =>
          stack.services.repositories.jobs.create(tx, {
            kind: 'self-test',
            ownerId: admin.id,
            params: { shots: 8 },
          }),
        );
        await stack.services.db.query(`update jobs set status = 'running' where id = $1`, [interrupted.id]);
        const waiting = await stack.services.db.transaction((tx) =>
          stack.services.repositories.jobs.create(tx, {
            kind: 'self-test',
            ownerId: admin.id,
            params: { shots: 8 },
          }),
        );
        await stack.services.jobs.recoverAfterRestart();
        const failed = await waitForFinal(stack, interrupted.id, 5_000);
        expect(failed.job).toMatchObject({
          status: 'Failed',
          error: 'The server restarted while the job was running',
        });
        // Queued again and run: it went through running (and ended by this stack's 3 s limit).
        expect(statuses((await waitForFinal(stack, waiting.id)).events as Event[])).toEqual([
          'queued',
          'running',
          'Failed',
        ]);
      },
    );

    it.skipIf(!mode.available)('fails a job handed out again after its worker was lost', async () => {
      const admin = (await stack.services.auth.authenticate(stack.adminToken))!.user;
      const orphan = await stack.services.db.transaction((tx) =>
        stack.services.repositories.jobs.create(tx, {
          kind: 'self-test',
          ownerId: admin.id,
          params: { shots: 8 },
        }),
      );
      await stack.services.db.query(`update jobs set status = 'running' where id = $1`, [orphan.id]);
      await stack.services.runner.run(orphan.id);
      const { job } = await waitForFinal(stack, orphan.id, 5_000);
      expect(job).toMatchObject({ status: 'Failed', error: 'The worker running this job was lost' });
    });

    it.skipIf(!mode.available)(
      "a finished job's event stream sends what is left after `after` and closes",
      async () => {
        const submitted = await submitSelfTest(stack, { shots: 16 });
        const { events } = (await waitForFinal(stack, submitted.id)) as unknown as { events: Event[] };
        const last = events.at(-1)!.seq;
        const stream = (after?: number) =>
          Promise.race([
            stack.app.inject({
              url: `/api/jobs/${submitted.id}/events${after === undefined ? '' : `?after=${after}`}`,
              headers: bearer(stack.adminToken),
            }),
            new Promise<never>((_, reject) =>
              setTimeout(() => reject(new Error(`the stream after ${after} did not end`)), 5_000),
            ),
          ]);
        const seqs = (body: string) => [...body.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
        expect(seqs((await stream()).body)).toEqual(events.map((e) => e.seq));
        expect(seqs((await stream(last - 2)).body)).toEqual([last - 1, last]);
        for (const after of [last, last + 1, 2147483647]) {
          const reply = await stream(after);
          expect(reply.statusCode).toBe(200);
          expect(seqs(reply.body)).toEqual([]);
        }
      },
    );

    it.skipIf(!mode.available)(
      'refuses an out-of-range `after` with a 400 before the stream starts',
      async () => {
        const submitted = await submitSelfTest(stack, { shots: 16 });
        for (const after of ['2147483648', '99999999999', '-1', '1.5', 'x']) {
          const reply = await stack.app.inject({
            url: `/api/jobs/${submitted.id}/events?after=${after}`,
            headers: bearer(stack.adminToken),
          });
          expect(reply.statusCode, `after=${after}`).toBe(400);
          expect(reply.headers['content-type']).toContain('application/json');
          expect(reply.json()).toMatchObject({ success: false, errors: [{ field: '/after' }] });
        }
        await waitForFinal(stack, submitted.id);
      },
    );

    it.skipIf(!mode.available)('pages the job list with a cursor the reply names', async () => {
      const token = await stack.userToken('pager@example.com');
      const user = (await stack.services.auth.authenticate(token))!.user;
      const created: number[] = [];
      for (let i = 0; i < 5; i++) {
        const job = await stack.services.db.transaction((tx) =>
          stack.services.repositories.jobs.create(tx, { kind: 'self-test', ownerId: user.id, params: {} }),
        );
        created.push(job.id);
      }
      type Page = { data: { jobs: { id: number }[]; next_before: number | null } };
      const seen: number[] = [];
      let query = 'limit=2';
      for (let pages = 0; pages < 10; pages++) {
        const reply = await stack.app.inject({ url: `/api/jobs?${query}`, headers: bearer(token) });
        expect(reply.statusCode).toBe(200);
        const { jobs, next_before } = (reply.json() as Page).data;
        expect(jobs.length).toBeLessThanOrEqual(2);
        seen.push(...jobs.map((j) => j.id));
        if (next_before === null) break;
        query = `limit=2&before=${next_before}`;
      }
      expect(seen).toEqual([...created].reverse());
      const tooMany = await stack.app.inject({ url: '/api/jobs?limit=101', headers: bearer(token) });
      expect(tooMany.statusCode).toBe(400);
    });

    it.skipIf(!mode.available)(
      'the jobs table accepts exactly the statuses job-states.ts lists',
      async () => {
        const { rows } = await stack.services.db.query<{ definition: string }>(
          `select pg_get_constraintdef(oid) as definition from pg_constraint where conname = 'jobs_status_known'`,
        );
        const listed = [...rows[0]!.definition.matchAll(/'((?:[^']|'')*)'/g)].map((m) =>
          m[1]!.replace(/''/g, "'"),
        );
        expect(listed.sort()).toEqual([...JOB_STATUSES].sort());
        const admin = (await stack.services.auth.authenticate(stack.adminToken))!.user;
        const job = await stack.services.db.transaction((tx) =>
          stack.services.repositories.jobs.create(tx, { kind: 'self-test', ownerId: admin.id, params: {} }),
        );
        await expect(
          stack.services.db.query(`update jobs set status = 'finished' where id = $1`, [job.id]),
        ).rejects.toThrow();
        await stack.services.db.query(`update jobs set status = $2 where id = $1`, [job.id, 'Manual Stop']);
      },
    );

    it.skipIf(!mode.available)('refuses bad job parameters with a message naming the field', async () => {
      const reply = await stack.app.inject({
        method: 'POST',
        url: '/api/diagnostics/self-test',
        headers: bearer(stack.adminToken),
        payload: { shots: 0 },
      });
      expect(reply.statusCode).toBe(400);
      expect(reply.json()).toMatchObject({ success: false, errors: [{ field: '/shots' }] });
      const notANumber = await stack.app.inject({ url: '/api/jobs/abc', headers: bearer(stack.adminToken) });
      expect(notANumber.statusCode).toBe(400);
    });
  },
);
