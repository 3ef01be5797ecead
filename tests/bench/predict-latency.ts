/**
 * Benchmark: warm brain tumor prediction latency through the server route
 * (POST /api/brain-tumor-classification/predict/{userId}, multipart upload of a 512 x 512 PNG) with the
 * warm worker pool, for an untrained densenet121 bundle at its default input size (the weights do not
 * change the time) saved by the worker's model_store. Prints the median and p95 of the round trip and
 * the worker's own split (read + check, model load, forward pass). Target: median under 300 ms.
 * Run: npm run bench:predict [calls]   (default 30, after 3 warm-up calls)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationsRepository } from '../../server/applications/applications-repository';
import { JobStatus } from '../../server/jobs/job-states';
import { WORKER_DIR } from '../../server/jobs/worker-process';
import { bearer, startStack } from '../../server/test-support/harness';
import { fileUploadBody } from '../../server/test-support/multipart-body';

const calls = Number(process.argv[2] ?? 30);
const WARM_UP = 3;
const MODEL = 'densenet121';
const EXAMPLE = path.resolve(import.meta.dirname, '../../samples/mri-examples/glioma-1.png');

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/** The bundle (and, when the shipped examples are absent, a generated 512 x 512 slice) via the worker. */
const SETUP = `
import sys
from pathlib import Path
import numpy as np, torch
from PIL import Image
from qmlstudio_worker.problems.brain_tumor.model_store import save_bundle
from qmlstudio_worker.problems.brain_tumor.models import DEFAULT_INPUT_SIZE, build_model
bundle, image, name = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
torch.manual_seed(0)
save_bundle(bundle, model_name=name, model_type="classical", model=build_model(name), config={},
            input_size=DEFAULT_INPUT_SIZE[name], classes=("meningioma", "glioma", "pituitary"))
if not image.exists():
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:512, 0:512] / 512
    slice_ = rng.uniform(0, 8, (512, 512))
    head = ((x - 0.5) / 0.36) ** 2 + ((y - 0.5) / 0.42) ** 2 <= 1
    slice_[head] = rng.uniform(80, 150, int(head.sum()))
    Image.fromarray(slice_.astype(np.uint8)).save(image)
`;

const stack = await startStack({ database: 'pglite', queue: 'in-process' }, { WORKER_WARM: 'true' });
try {
  const token = await stack.userToken('bench@example.com');
  const user = (await stack.services.repositories.users.findByEmail('bench@example.com'))!;
  const app = await new ApplicationsRepository(stack.services.db).create({
    userId: user.id,
    appName: 'predict latency bench',
    appProblemId: 'brain-tumor',
    status: 'active',
    appData: {},
  });
  const jobs = stack.services.repositories.jobs;
  const training = await stack.services.db.transaction((tx) =>
    jobs.create(tx, { kind: 'brain-tumor', ownerId: user.id, params: {}, applicationId: app.id }),
  );
  const scratch = path.join(stack.config.dataDir, 'bench');
  mkdirSync(scratch, { recursive: true });
  const image = existsSync(EXAMPLE) ? EXAMPLE : path.join(scratch, 'slice.png');
  const bundle = path.join(stack.config.dataDir, 'outputs', String(training.id));
  execFileSync(path.join(WORKER_DIR, '.venv', 'bin', 'python'), ['-c', SETUP, bundle, image, MODEL], {
    cwd: WORKER_DIR,
  });
  await stack.services.runner.transition(training.id, [JobStatus.queued], JobStatus.running);
  await stack.services.runner.transition(training.id, [JobStatus.running], JobStatus.completed, {
    result: { model: MODEL, model_type: 'Classical', trained_model_path: 'model.json' },
  });
  const png = readFileSync(image);
  const warm = await (stack.services.launcher as { warmUp?: () => Promise<boolean> }).warmUp?.();

  const roundTrip: number[] = [];
  const split: Record<string, number[]> = { read: [], load_model: [], predict: [] };
  for (let i = 0; i < WARM_UP + calls; i++) {
    const body = fileUploadBody(png, { filename: path.basename(image), type: 'image/png' });
    const started = performance.now();
    const reply = await stack.app.inject({
      method: 'POST',
      url: `/api/brain-tumor-classification/predict/${user.id}?application_id=${app.id}&model_name=densenet121`,
      headers: { ...bearer(token), ...body.headers },
      payload: body.payload,
    });
    const elapsed = performance.now() - started;
    if (reply.statusCode !== 200) throw new Error(`prediction refused (${reply.statusCode}): ${reply.body}`);
    if (i < WARM_UP) continue;
    roundTrip.push(elapsed);
    const output = await jobs.find((reply.json() as { output_id: number }).output_id);
    const seconds = (output?.result?.seconds ?? {}) as Record<string, number>;
    for (const key of Object.keys(split)) split[key]!.push((seconds[key] ?? NaN) * 1000);
  }
  const ms = (values: number[], q: number) => `${quantile(values, q).toFixed(0)} ms`;
  console.log(
    `brain tumor predict (${MODEL}, ${path.basename(image)} 512x512 PNG, warm pool ${warm ? 'ready' : 'cold fallback'}, ${calls} calls)`,
  );
  console.log(
    `  round trip   median ${ms(roundTrip, 0.5)}, p95 ${ms(roundTrip, 0.95)} (target: median < 300 ms)`,
  );
  for (const [key, values] of Object.entries(split)) {
    console.log(`  ${key.padEnd(12)} median ${ms(values, 0.5)}, p95 ${ms(values, 0.95)} (in the worker)`);
  }
} finally {
  await stack.close();
}
process.exit(0);
