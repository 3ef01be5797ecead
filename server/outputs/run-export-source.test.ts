import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFileBase, exportNotebook, exportScript, type ExportedRun } from './run-export';

// The exported code's source, whatever the names in it: an application name, column names and values
// with quotes, backslashes, line breaks and other scripts stay data. Python reads the script back to the
// same body, extension and metrics (nothing of a name runs), and the download's name is safe.

const run = promisify(execFile);
const PYTHON = path.resolve(import.meta.dirname, '../../worker/.venv/bin/python');
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
