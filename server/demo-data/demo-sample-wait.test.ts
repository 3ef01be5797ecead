import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationsRepository } from '../applications/applications-repository';
import { SampleCatalog } from '../samples/sample-catalog';
import { DEMO_OWNER_EMAIL } from '../stock-demo/demo-models';
import { startStack, type TestStack } from '../test-support/harness';
import { DemoRuns } from './demo-runs';

// On a fresh `make run` the brain tumor .mat sample is written in the background after the server has
// started, so its landing example cannot be queued at the first try ('There is no sample dataset named
// "brain_tumor_dataset.mat"'). It must be queued once the file is in place, however long that takes (not
// only within a fixed number of tries), so the landing page's brain tumor result is not missing until
// the next start. The stack runs no workers: the job stays queued.

const MAT = 'brain_tumor_dataset.mat';

describe('the landing example whose sample is still being written', () => {
  let stack: TestStack;
  let samplesDir: string;
  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' }, {}, { runWorkers: false });
    // A copy of samples/ without the .mat file: the catalog lists it as pending, as on a fresh clone.
    samplesDir = mkdtempSync(path.join(os.tmpdir(), 'qml-samples-'));
    const shipped = path.resolve('samples');
    for (const file of [
      'manifest.json',
      ...SampleCatalog.loadSync(shipped)
        .list()
        .map((s) => s.file),
    ])
      writeFileSync(path.join(samplesDir, file), readFileSync(path.join(shipped, file)));
    const pending = SampleCatalog.loadSync(samplesDir);
    // The stack's resolver reads its catalog through these methods: answer from the copy.
    const catalog = stack.services.samples;
    catalog.find = (file) => pending.find(file);
    catalog.serves = (file) => pending.serves(file);
    catalog.pathOf = (file) => pending.pathOf(file);
  });
  afterAll(async () => {
    await stack?.close();
    rmSync(samplesDir, { recursive: true, force: true });
  });

  it('is tried again past its tries while the sample is missing, and queued once the sample is written', async () => {
    const brainTumorRun = async () =>
      (
        await stack.services.db.query<{ job_id: string | null }>(
          `select job_id from demo_results where problem_id = 'brain-tumor'`,
        )
      ).rows[0]?.job_id ?? null;
    const runs = new DemoRuns({
      db: stack.services.db,
      users: stack.services.repositories.users,
      applications: new ApplicationsRepository(stack.services.db),
      outputs: stack.services.outputs,
      ownerEmail: DEMO_OWNER_EMAIL,
      log: pino({ level: 'silent' }),
    });
    try {
      // One try only: before, a refused example was never tried again with tries = 1.
      const first = await runs.startAndRetry(1, 100);
      expect(first.refused).toEqual([
        { problemId: 'brain-tumor', reason: expect.stringContaining(`no sample dataset named "${MAT}"`) },
      ]);
      expect(await brainTumorRun()).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 500)); // several retries, still missing
      expect(await brainTumorRun()).toBeNull();

      // The background writer renames the finished file into place.
      writeFileSync(path.join(samplesDir, MAT), readFileSync(path.resolve('samples', MAT)));
      await expect.poll(brainTumorRun, { timeout: 10_000 }).not.toBeNull();
    } finally {
      runs.stop();
    }
  });
});
