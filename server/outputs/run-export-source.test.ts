import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  exportFileBase,
  exportNotebook,
  exportScript,
  IBM_TOKEN_VARIABLE,
  type ExportedRun,
} from './run-export';

// The exported code's source, whatever the names in it: an application name, column names and values
// with quotes, backslashes, line breaks and other scripts stay data. Python reads the script back to the
// same body, extension and metrics (nothing of a name runs), and the download's name is safe.

type Json = Record<string, unknown>;
const run = promisify(execFile);
const PYTHON = path.resolve(import.meta.dirname, '../../worker/.venv/bin/python');
const STANDIN_DIR = path.resolve(import.meta.dirname, '../../worker/tests/unit');
const HOSTILE = 'Q3 "report"\n__import__("os").system("echo pwned") # \\ \u2028 ` """ é 数据 😀';

const RUN: ExportedRun = {
  outputId: 7,
  outputName: `${HOSTILE} #7`,
  applicationName: HOSTILE,
  kind: 'fraud-detection',
  model: 'Logistic Regression',
  body: {
    id: 3,
    features: ['V1', 'col "quoted"', 'back\\slash', 'line\nbreak', 'tab\there', '\u0000nul', HOSTILE],
    train_test_split: 0.3,
    tiny: 1e-7,
    big: 12345678901234,
    negative: -0.5,
    flag: true,
    nothing: null,
    nested: { empty: {}, list: [], deep: [[1, 2], { a: false }] },
  },
  extension: {
    dataset: {
      sha256: 'c'.repeat(64),
      row_count: 10,
      columns: [HOSTILE, 'Class'],
      label: HOSTILE,
      synthetic: true,
    },
    normalization: '[0,1]',
    missing_values: null,
    seed: 42,
  },
  seed: 42,
  datasetSha256: 'c'.repeat(64),
  datasetLabel: HOSTILE,
  shippedDataset: null,
  versions: { numpy: '2.4.6', python: '3.11.7' },
  metrics: { accuracy: 0.987654321, f1: 0 },
  baseline: { name: HOSTILE, metrics: { accuracy: 0.995 } },
  recordedAt: '2026-11-27T18:00:00Z',
};

describe('the exported source', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qml-export-source-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** The script's constants as Python reads them (imported as a module: main does not run). */
  async function readBack(source: string, file: string) {
    await writeFile(path.join(dir, `${file}.py`), source);
    const { stdout } = await run(
      PYTHON,
      [
        '-c',
        `import json, ${file} as m; print(json.dumps([m.JOB_BODY, m.EXTENSION, m.OUTPUT_METRICS, m.OUTPUT_BASELINE, m.SHIPPED_DATASET, m.RECORDED_VERSIONS]))`,
      ],
      { cwd: dir, env: { PATH: '/usr/bin:/bin' } },
    );
    return JSON.parse(stdout) as unknown[];
  }

  it('the script holds the run as data: Python reads back the same values and runs none of the names', async () => {
    const values = await readBack(exportScript(RUN), 'exported_script');
    expect(values).toEqual([RUN.body, RUN.extension, RUN.metrics, RUN.baseline, null, RUN.versions]);
  });

  it("the notebook's code cells hold the same values", async () => {
    const notebook = JSON.parse(exportNotebook(RUN)) as { cells: { cell_type: string; source: string[] }[] };
    const code = notebook.cells
      .filter((c) => c.cell_type === 'code')
      .map((c) => c.source.join(''))
      // Only the definitions: the steps would look for the dataset.
      .slice(0, 2)
      .join('\n\n');
    const values = await readBack(code, 'exported_notebook');
    expect(values).toEqual([RUN.body, RUN.extension, RUN.metrics, RUN.baseline, null, RUN.versions]);
    // The name is shown as text in the Markdown: no HTML, no heading or link syntax of its own.
    const title = notebook.cells[0]!.source[0]!;
    expect(title).not.toMatch(/<|\n.|\u2028/);
  });

  it('names the download after the application in safe characters', () => {
    expect(exportFileBase(RUN)).toBe('Q3_report_import_os_system_echo_pwned_e_output_7');
    expect(exportFileBase({ applicationName: '数据', outputId: 3 })).toBe('qmlstudio_run_output_3');
    expect(exportFileBase({ applicationName: 'x'.repeat(100), outputId: 1 })).toBe(
      `${'x'.repeat(60)}_output_1`,
    );
  });
});

// An IBM device run: the export never holds a token (the body's custom one, the stored one the server put in
// the envelope); the script reads QISKIT_IBM_TOKEN when it runs and refuses, naming it, when it is unset.
describe("an IBM device run's export", () => {
  const BODY_SECRET = 'custom-token-in-the-body-0123456789';
  const STORED_SECRET = 'stored-token-in-the-envelope-9876543210';
  const DATASET = 'Time,Amount,Class\n0,1.5,0\n1,2.5,1\n';
  let dir: string;
  let device: ExportedRun;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qml-export-ibm-'));
    await writeFile(path.join(dir, 'data.csv'), DATASET);
    device = {
      ...RUN,
      applicationName: 'Fraud on ibm_kyiv',
      body: {
        id: 3,
        use_quantum_simulator: false,
        quantum_device_backend: 'ibm_kyiv',
        actual_quantum_device_token: BODY_SECRET,
      },
      extension: { ...RUN.extension, ibm_token: STORED_SECRET },
      datasetSha256: createHash('sha256').update(DATASET).digest('hex'),
      versions: {},
      metrics: {},
      baseline: null,
    };
    await writeFile(path.join(dir, 'device_run.py'), exportScript(device));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes no token: the body keeps the field as None, the extension loses the stored one', async () => {
    for (const source of [exportScript(device), exportNotebook(device)]) {
      expect(source).not.toContain(BODY_SECRET);
      expect(source).not.toContain(STORED_SECRET);
    }
    const { stdout } = await run(
      PYTHON,
      ['-c', 'import json, device_run as m; print(json.dumps([m.JOB_BODY, m.EXTENSION, m.IBM_DEVICE]))'],
      { cwd: dir, env: { PATH: '/usr/bin:/bin' } },
    );
    const [body, extension, ibmDevice] = JSON.parse(stdout) as [Record<string, unknown>, object, string];
    expect(body).toEqual({ ...device.body, actual_quantum_device_token: null });
    expect(extension).not.toHaveProperty('ibm_token');
    expect(ibmDevice).toBe('ibm_kyiv');
    expect(exportScript(RUN)).toContain('IBM_DEVICE = None'); // a simulator run needs no token
  });

  it('refuses to run without QISKIT_IBM_TOKEN, naming the variable and the device', async () => {
    const failure = await run(PYTHON, ['device_run.py', '--dataset', 'data.csv'], {
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
    }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain(`set the environment variable ${IBM_TOKEN_VARIABLE}`);
    expect(failure?.stderr).toContain('ibm_kyiv');
  });

  it("hands the variable's token to the worker's device path, which opens the device on the IBM stand-in", async () => {
    // The script's own main, with run_job replaced by the worker's device step alone (no training): the
    // envelope's token goes through support.device_target to the real qiskit-ibm-runtime client, pointed
    // at worker/tests/unit/ibm_standin.py. The stand-in accepts only its API key.
    const driver = `
import json, os, sys
sys.path.insert(0, ${JSON.stringify(STANDIN_DIR)})
from types import SimpleNamespace
from ibm_standin import IAM_URL, IBMStandIn, running
from qmlstudio_worker.jobs import runner, support
from qmlstudio_worker.quantum import devices
import device_run

def device_step(raw, emit):
    envelope = json.loads(raw)
    inputs = SimpleNamespace(ibm_token=envelope["extension"].get("ibm_token"))
    try:
        backend = support.device_target(envelope["params"], inputs).open()
    except devices.DeviceError as refusal:
        emit.error(refusal.message, "validation", refusal.field)
        return
    emit.result({"metrics": {"device_opened": 1.0 if backend.name == "ibm_kyiv" else 0.0}, "baseline": None})

runner.run_job = device_step
with running(IBMStandIn()) as standin:
    os.environ["IAM_URL"] = IAM_URL
    devices.SERVICE_OPTIONS = standin.service_options()
    for token in ("standin-api-key", "not-the-key"):
        os.environ[${JSON.stringify(IBM_TOKEN_VARIABLE)}] = token
        before = len(standin.calls("iam."))
        code = device_run.main(["--dataset", "data.csv"])
        print(json.dumps({"code": code, "iam": standin.calls("iam.")[before:]}), flush=True)
`;
    const { stdout, stderr } = await run(PYTHON, ['-c', driver], {
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
      timeout: 120_000,
    });
    const [printed, accepted, rejected] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    expect(printed).toMatchObject({ metrics: { device_opened: 1 } });
    // Each token was exchanged at the stand-in's IAM; only its API key opened the device.
    expect(accepted).toMatchObject({ code: 0, iam: expect.arrayContaining(['POST /identity/token']) });
    expect(rejected).toMatchObject({ code: 1, iam: expect.arrayContaining(['POST /identity/token']) });
    expect(stderr).toContain('IBM Quantum rejected the token');
  }, 150_000);
});
