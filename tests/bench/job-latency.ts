/**
 * Benchmark: submit-to-start latency of a job (created_at -> started_at, i.e. queue hand-over and
 * the runner's status change, before the Python process starts) and submit-to-Completed time of
 * the quantum self-test, in both queue modes. Run: npx tsx tests/bench/job-latency.ts [jobs]
 */
import { startStack, submitSelfTest, waitForFinal, type QueueMode } from '../../server/test-support/harness';

const runs = Number(process.argv[2] ?? 10);
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

for (const queue of ['in-process', 'bullmq'] as QueueMode[]) {
  const stack = await startStack({ database: 'pglite', queue }, { WORKER_CONCURRENCY: '1' });
  const toStart: number[] = [];
  const toEnd: number[] = [];
  for (let i = 0; i < runs; i++) {
    const submitted = Date.now();
    const { id } = await submitSelfTest(stack, { shots: 1024 });
    const { job } = (await waitForFinal(stack, id)) as unknown as {
      job: { created_at: string; started_at: string; status: string };
    };
    if (job.status !== 'Completed') throw new Error(`job ${id} ended ${job.status}`);
    toStart.push(new Date(job.started_at).getTime() - new Date(job.created_at).getTime());
    toEnd.push(Date.now() - submitted);
  }
  console.log(
    `${queue.padEnd(10)} submit-to-start median ${quantile(toStart, 0.5)} ms, p95 ${quantile(toStart, 0.95)} ms; ` +
      `submit-to-Completed median ${quantile(toEnd, 0.5)} ms (${runs} jobs)`,
  );
  await stack.close();
}
process.exit(0);
