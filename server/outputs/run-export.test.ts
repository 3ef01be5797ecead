import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, type AppData } from '../../src/engine';
import {
  bearer,
  executeApplication,
  MODES,
  outputDetail,
  startStack,
  type TestStack,
} from '../test-support/harness';

// Runs exported as code, through the REAL app and worker: a small stock (LSTM), fraud (Logistic
// Regression) and portfolio (VQE) run are trained, their scripts downloaded and run in a clean process
// (the worker's Python, an empty environment, a temporary working directory) and the metrics the script
// prints are the output's. The notebook's code cells, run as one program, give the same metrics. A file
// other than the run's dataset is refused naming both hashes; another user's output is not found; an
// output that is not a completed training is refused.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');
const PYTHON = path.join(REPO, 'worker/.venv/bin/python');
// PGlite with the in-process queue is always available: one mode is enough for these real runs.
const mode = MODES.find((m) => m.database === 'pglite' && m.queue === 'in-process')!;

/** Each example made small: a few epochs, steps or a quick classical model. */
const SMALL: Record<string, (configurations: Json) => void> = {
  'stock-price-prediction': (c) => {
    Object.assign(c, { model_type: 'Classical', training_model_method: 'LSTM', epochs: 5 });
    delete c.qubits;
    delete c.quantum_device;
  },
  'fraud-detection': (c) => {
    for (const key of Object.keys(c)) delete c[key];
    Object.assign(c, { model_type: 'Classical', method: 'Logistic Regression', device: 'CPU' });
  },
  'portfolio-optimization': (c) => Object.assign(c, { optimizer_step: 10, circuit_repetition: 1 }),
};

/** The JSON line the exported code prints last on stdout. */
function metricsLine(stdout: string): Json {
  const line = stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .at(-1);
  if (!line) throw new Error(`no JSON line in:\n${stdout}`);
  return JSON.parse(line) as Json;
}

/** Every metric as the output shows it, to 9 significant digits (the same run, read back as JSON). */
function expectSameMetrics(printed: Record<string, number>, shown: Record<string, number>) {
  expect(Object.keys(printed).sort()).toEqual(Object.keys(shown).sort());
  for (const [name, value] of Object.entries(shown)) {
    expect(printed[name], name).toBeCloseTo(
      value,
      Math.max(0, 9 - Math.ceil(Math.log10(Math.abs(value) + 1))),
    );
  }
}

describe('runs exported as code', () => {
  let stack: TestStack;
  let owner: { id: number; token: string };
  let stranger: string;
  let scratch: string;
  const outputs = new Map<string, number>();

  beforeAll(async () => {
    stack = await startStack(mode, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '300' });
    const email = 'exporter@example.com';
    const token = await stack.userToken(email);
    const user = await stack.services.repositories.users.findByEmail(email);
    owner = { id: Number(user!.id), token };
    stranger = await stack.userToken('export-stranger@example.com');
    scratch = await mkdtemp(path.join(tmpdir(), 'qml-export-'));
  });
  afterAll(async () => {
    await stack?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const download = (outputId: number, format: 'script' | 'notebook', token = owner.token) =>
    stack.app.inject({
      url: `/api/application-outputs/${outputId}/export/${format}`,
      headers: bearer(token),
    });

  /** Python in a clean process: an empty environment but PATH, a fresh working directory. */
  async function python(args: string[], cwd: string) {
    return run(PYTHON, args, {
      cwd,
      env: { PATH: '/usr/bin:/bin' },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 120_000,
    });
  }

  async function train(problemId: string) {
    const problem = stack.services.registry.getProblem(problemId);
    const { appData } = createExampleAppData(problem);
    SMALL[problemId]!((appData as Json).model_configurations as Json);
    const { outputId, final } = await executeApplication(
      stack,
      owner,
      { problemId, appName: `Export ${problemId} / test`, appData: appData as AppData },
      240_000,
    );
    expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');
    outputs.set(problemId, outputId);
    return outputId;
  }

  for (const problemId of Object.keys(SMALL)) {
    it(`${problemId}: the downloaded script trains again to the output's metrics`, async () => {
      const outputId = await train(problemId);
      const detail = await outputDetail<Json>(stack, owner.token, outputId);

      const reply = await download(outputId, 'script');
      expect(reply.statusCode, reply.body).toBe(200);
      expect(reply.headers['content-type']).toBe('text/x-python; charset=utf-8');
      // The application's name in safe characters, and the output.
      const name = `Export_${problemId.replace(/-/g, '_')}_test_output_${outputId}`;
      expect(reply.headers['content-disposition']).toBe(`attachment; filename="${name}.py"`);

      const dir = await mkdtemp(path.join(scratch, `${problemId}-`));
      const script = path.join(dir, `${name}.py`);
      await writeFile(script, reply.body);
      const sample = path.join(REPO, String((detail.app_data as Json).dataset.url));
      const { stdout } = await python([script, '--dataset', sample], dir);
      const printed = metricsLine(stdout);
      expect(printed.output_id).toBe(outputId);
      expectSameMetrics(printed.metrics, detail.metrics);
      expect(printed.baseline.name).toBe(detail.baseline.name);
      expectSameMetrics(printed.baseline.metrics, detail.baseline.metrics);
    }, 300_000); // a training (up to train's 240 s) and the script's own: beyond the project's 60 s
  }

  it("the notebook is nbformat 4 and its code cells run to the output's metrics", async () => {
    const outputId = outputs.get('fraud-detection') ?? (await train('fraud-detection'));
    const reply = await download(outputId, 'notebook');
    expect(reply.statusCode, reply.body).toBe(200);
    expect(reply.headers['content-type']).toBe('application/x-ipynb+json; charset=utf-8');
    expect(reply.headers['content-disposition']).toMatch(
      /filename="Export_fraud_detection_test_output_\d+\.ipynb"/,
    );
    const notebook = JSON.parse(reply.body) as Json;
    expect(notebook).toMatchObject({ nbformat: 4, nbformat_minor: 5 });
    expect(notebook.metadata.kernelspec.name).toBe('python3');
    const ids = new Set<string>();
    for (const cell of notebook.cells as Json[]) {
      expect(['markdown', 'code']).toContain(cell.cell_type);
      expect(cell.id).toMatch(/^[a-zA-Z0-9-_]{1,64}$/);
      ids.add(cell.id);
      expect(cell.metadata).toEqual({});
      expect(Array.isArray(cell.source) && cell.source.every((s: unknown) => typeof s === 'string')).toBe(
        true,
      );
      if (cell.cell_type === 'code') expect(cell).toMatchObject({ execution_count: null, outputs: [] });
    }
    expect(ids.size).toBe(notebook.cells.length);
    const kinds = (notebook.cells as Json[]).map((c) => c.cell_type as string);
    expect(kinds.filter((k) => k === 'markdown').length).toBeGreaterThanOrEqual(4);

    // The code cells as one program, run where the sample is not: it is found in the checkout.
    const dir = await mkdtemp(path.join(scratch, 'notebook-'));
    const program = (notebook.cells as Json[])
      .filter((c) => c.cell_type === 'code')
      .map((c) => (c.source as string[]).join(''))
      .join('\n\n');
    await writeFile(path.join(dir, 'notebook.py'), program);
    const { stdout } = await python(['notebook.py'], dir);
    const detail = await outputDetail<Json>(stack, owner.token, outputId);
    expectSameMetrics(metricsLine(stdout).metrics, detail.metrics);
  });

  it('refuses a dataset other than the run’s, naming both hashes, and other library versions', async () => {
    const outputId = outputs.get('portfolio-optimization') ?? (await train('portfolio-optimization'));
    const job = (await stack.services.repositories.jobs.find(outputId))!;
    const sha256 = (job.extension.dataset as Json).sha256 as string;
    const dir = await mkdtemp(path.join(scratch, 'wrong-'));
    await writeFile(path.join(dir, 'run.py'), (await download(outputId, 'script')).body);
    const other = path.join(REPO, 'samples/apple_google_stock.csv');
    const refused = await python(['run.py', '--dataset', other], dir).then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(refused, 'the script must refuse the file').not.toBeNull();
    expect(refused!.code).toBe(2);
    expect(refused!.stdout).toBe('');
    expect(refused!.stderr).toContain(`is not the dataset this run trained on`);
    expect(refused!.stderr).toContain(`the run's is ${sha256}`);

    // Another library version than the run recorded: refused, naming it, before anything is trained.
    const script = (await download(outputId, 'script')).body;
    const recorded = /"numpy": "([^"]+)"/.exec(script)![1]!;
    await writeFile(path.join(dir, 'other.py'), script.replace(`"numpy": "${recorded}"`, '"numpy": "0.0.1"'));
    const sample = path.join(REPO, 'samples/five_companies_stock.csv');
    const versions = await python(['other.py', '--dataset', sample], dir).then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(versions, 'the script must refuse other versions').not.toBeNull();
    expect(versions!.code).toBe(2);
    expect(versions!.stderr).toContain(`numpy: the run had 0.0.1, this Python has ${recorded}`);
    expect(versions!.stderr).toContain('--ignore-versions');
  });

  it("answers 404 for another user's output and 409 for an output that is not a completed training", async () => {
    const outputId = outputs.get('fraud-detection') ?? (await train('fraud-detection'));
    for (const format of ['script', 'notebook'] as const) {
      const reply = await download(outputId, format, stranger);
      expect(reply.statusCode).toBe(404);
      expect(reply.json()).toMatchObject({ success: false, detail: 'Output not found' });
      expect((await download(outputId, format, stack.adminToken)).statusCode).toBe(404);
      expect((await download(999_999, format)).statusCode).toBe(404);
    }
    // The same output, recorded as Failed, is no completed training any more.
    await stack.services.db.query(`update jobs set status = 'Failed' where id = $1`, [outputId]);
    const failed = await download(outputId, 'script');
    expect(failed.statusCode).toBe(409);
    expect(failed.json().detail).toBe(
      'Only a completed training output can be exported as code: this output is Failed.',
    );
    const anonymous = await stack.app.inject({ url: `/api/application-outputs/${outputId}/export/script` });
    expect(anonymous.statusCode).toBe(401);
  });
});
