// Brain tumor training on the server: a .mat upload read by the real worker (mat-inspect),
// its refusals, the Train tab's preview, execute-job with the chosen range reaching the worker, the
// request checks and ownership, and one real FCN training to Completed with its metrics, history and
// result type in the outputs list. The tiny .mat (24 synthetic slices, 8 patients) is written by the
// worker's own generator and writer, so the server reads what the product writes.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, mapJobRequest, type AppData } from '../../src/engine';
import {
  bearer,
  EACH_ONCE,
  itIn,
  ONE_MODE,
  outputDetail,
  startStack,
  waitForFinal,
  type TestStack,
} from '../test-support/harness';
import { fileUploadBody } from '../test-support/multipart-body';

const WORKER_PYTHON = path.resolve('worker/.venv/bin/python');

/** 8 patients (labels 1,2,3,1,2,3,1,2) x 3 slices at 48x48: 9 meningioma, 9 glioma, 6 pituitary. */
const TINY_MAT_SCRIPT = `
import sys
import numpy as np
from qmlstudio_worker.problems.brain_tumor.mat_data import MriSlice
from qmlstudio_worker.problems.brain_tumor.mat_write import write_struct_array
from qmlstudio_worker.problems.brain_tumor.synthetic_mri import make_patient, render_slice
rng = np.random.default_rng(7)
items = []
for p in range(8):
    label = p % 3 + 1
    patient = make_patient(rng, label, f"SYN-T{p}")
    for level in (-0.3, 0.0, 0.3):
        drawn = render_slice(patient, rng, 48, level)
        items.append(MriSlice(drawn.image, label, patient.pid, drawn.border, drawn.mask))
write_struct_array(sys.argv[1], items)
# The same slices as a zip of .mat files (two members), as Figshare's download comes.
import zipfile
from pathlib import Path
half = Path(sys.argv[1]).with_name("part2.mat")
write_struct_array(half, items[12:])
first = Path(sys.argv[1]).with_name("part1.mat")
write_struct_array(first, items[:12])
with zipfile.ZipFile(Path(sys.argv[1]).with_suffix(".zip"), "w") as archive:
    archive.write(first, "slices/part1.mat")
    archive.write(half, "slices/part2.mat")
`;

interface Account {
  id: number;
  email: string;
  token: string;
}

interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T & {
    success: boolean;
    message?: string;
    detail?: string;
    errors?: { field: string; message: string }[];
  };
}

// Each database and each queue once (harness EACH_ONCE: PGlite with the in-process queue, PostgreSQL
// with BullMQ): the upload's record, the training's extension, results and model are persisted through
// the repositories and queues those passes prove; a job's lifecycle in all four modes (queued, running,
// final, stopped, lost) is jobs.test.ts's and outputs.test.ts's. Each pass is a stack with its own warm
// Python, so the two modes not run here were two more Python starts and trainings for nothing new.
// Uploads, previews and refusals (files and messages, no job) are checked in one mode (harness MODES).
/** The tiny .mat and its .zip, written once for the file's passes (a Python that imports the worker). */
let tiny: { mat: Buffer; zip: Buffer } | undefined;
function tinyFiles(): { mat: Buffer; zip: Buffer } {
  if (tiny) return tiny;
  const scratch = mkdtempSync(path.join(tmpdir(), 'qml-brain-'));
  try {
    const file = path.join(scratch, 'tiny_synthetic.mat');
    execFileSync(WORKER_PYTHON, ['-c', TINY_MAT_SCRIPT, file], { cwd: path.resolve('worker') });
    tiny = { mat: readFileSync(file), zip: readFileSync(file.replace(/\.mat$/, '.zip')) };
    return tiny;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

for (const mode of EACH_ONCE)
  describe.skipIf(!mode.available)(`brain tumor training (${mode.database}, ${mode.queue})`, () => {
    const { database, queue } = mode;
    const itOnce = itIn(mode, [ONE_MODE]);
    let stack: TestStack;
    let alice: Account;
    let bob: Account;
    let tinyMat: Buffer;
    let tinyZip: Buffer;
    let uploadUrl: string;

    const account = async (email: string): Promise<Account> => {
      const token = await stack.userToken(email);
      const user = await stack.services.repositories.users.findByEmail(email);
      return { id: user!.id, email, token };
    };

    const upload = async (who: Account, content: Buffer, filename: string): Promise<Reply> => {
      const body = fileUploadBody(content, { filename, type: 'application/octet-stream' });
      const reply = await stack.app.inject({
        method: 'POST',
        url: `/api/upload/${who.id}/${encodeURIComponent(who.email)}`,
        headers: { ...bearer(who.token), ...body.headers },
        payload: body.payload,
      });
      return { status: reply.statusCode, body: reply.json() };
    };

    const get = async (who: Account, url: string): Promise<Reply> => {
      const reply = await stack.app.inject({ url, headers: bearer(who.token) });
      return { status: reply.statusCode, body: reply.json() };
    };

    const storedFiles = (who: Account) =>
      readdirSync(path.join(stack.config.dataDir, 'datasets', String(who.id))).filter(
        (f) => !f.startsWith('.'),
      );

    /** A brain tumor application of `owner` on `file` with an FCN (the smallest model), stored as is. */
    const application = async (
      owner: Account,
      file: string,
      range: [number, number],
      model: Record<string, unknown> = { model: 'FCN', learningRate: 0.01 },
      dataset: Record<string, unknown> = {},
    ) => {
      const brain = stack.services.registry.getProblem('brain-tumor');
      const appData = structuredClone(createExampleAppData(brain).appData) as AppData & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      appData.dataset = {
        kind: 'mat',
        file,
        name: 'tiny_synthetic.mat',
        training_range: { from_index: range[0], to_index: range[1] },
        split: 'patient',
        ...dataset,
      };
      appData.model_configurations = { ...appData.model_configurations, ...model };
      const { rows } = await stack.services.db.query<{ id: number }>(
        `insert into applications (user_id, app_name, app_problem_id, app_data) values ($1, $2, $3, $4)
         returning id`,
        [owner.id, 'Brain tumor test', 'brain-tumor', JSON.stringify(appData)],
      );
      const id = Number(rows[0]!.id);
      const request = mapJobRequest(brain, appData, { applicationId: id, userId: owner.id, rowCount: 24 });
      return { id, appData, request };
    };

    const execute = async (
      who: Account,
      request: { path: string; query: Record<string, unknown>; body: Record<string, unknown> },
      change: { path?: string; query?: Record<string, unknown> } = {},
    ): Promise<Reply<{ data?: { output_id: number } }>> => {
      const query = new URLSearchParams(
        Object.entries({ ...request.query, ...change.query }).map(([k, v]) => [k, String(v)]),
      );
      const reply = await stack.app.inject({
        method: 'POST',
        url: `/api${change.path ?? request.path}?${query.toString()}`,
        headers: bearer(who.token),
        payload: request.body,
      });
      return { status: reply.statusCode, body: reply.json() };
    };

    beforeAll(async () => {
      ({ mat: tinyMat, zip: tinyZip } = tinyFiles());
      stack = await startStack({ database, queue });
      alice = await account('alice@example.com');
      bob = await account('bob@example.com');
    }, 120_000);
    afterAll(async () => {
      await stack?.close();
    });

    it('stores a .mat upload read by the worker: slices, classes, patients, size and format', async () => {
      const reply = await upload(alice, tinyMat, 'tiny_synthetic.mat');
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body).toMatchObject({
        success: true,
        rows: 24,
        count: 24,
        class_counts: { meningioma: 9, glioma: 9, pituitary: 6 },
        patients: 8,
        image_size: [48, 48],
        format: 'mat-v7.3',
        size_bytes: tinyMat.length,
      });
      expect(reply.body.filename).toMatch(/^[a-f0-9]{32}\.mat$/);
      uploadUrl = reply.body.url as string;
      // The owner downloads the same bytes.
      const download = await stack.app.inject({ url: uploadUrl, headers: bearer(alice.token) });
      expect(download.statusCode).toBe(200);
      expect(download.rawPayload.equals(tinyMat)).toBe(true);
    }, 120_000);

    itOnce(
      'reads a .zip of .mat files as one dataset',
      async () => {
        const reply = await upload(alice, tinyZip, 'slices.zip');
        expect(reply.status, JSON.stringify(reply.body)).toBe(201);
        expect(reply.body).toMatchObject({ count: 24, patients: 8, format: 'zip' });
        expect(reply.body.filename).toMatch(/^[a-f0-9]{32}\.zip$/);
      },
      120_000,
    );

    itOnce(
      "refuses what is not a MAT file and a damaged one in the spec's words, keeping nothing",
      async () => {
        const before = storedFiles(alice);
        const text = await upload(alice, Buffer.from('Day,Sales\n1,2\n'), 'scans.mat');
        expect(text.status).toBe(400);
        expect(text.body.message).toBe('Invalid file format. Please select a .mat file.');
        // A MATLAB 7.3 header with no HDF5 behind it: the worker's reader says why.
        const header = Buffer.alloc(512, 0x20);
        header.write(
          'MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Thu Jan  1 00:00:00 2026 HDF5 schema 1.00 .',
        );
        const damaged = await upload(
          alice,
          Buffer.concat([header, Buffer.from('not hdf5 at all')]),
          'broken.mat',
        );
        expect(damaged.status).toBe(400);
        // The reader's own words, not how the process ended.
        expect(damaged.body.message).toMatch(/^Error parsing file: not a MATLAB file/);
        expect(storedFiles(alice)).toEqual(before);
      },
      120_000,
    );

    itOnce(
      "previews a slice of the owner's upload; a bad index names the field; someone else's is not found",
      async () => {
        const preview = await get(
          alice,
          `/api/datasets/mat-preview?url=${encodeURIComponent(uploadUrl)}&index=3&rows=5`,
        );
        expect(preview.status, JSON.stringify(preview.body)).toBe(200);
        const data = preview.body.data as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
        expect(data).toMatchObject({ count: 24, patients: 8, image_size: [48, 48] });
        expect(data.image_data).toHaveLength(5);
        expect(data.image_data[0]).toMatchObject({
          index: 1,
          label: 1,
          label_name: 'meningioma',
          pid: 'SYN-T0',
        });
        expect(data.slice.index).toBe(3);
        expect(Buffer.from(data.slice.thumbnail_png, 'base64').subarray(1, 4).toString()).toBe('PNG');
        expect(data.slice.tumor_mask.area).toBeGreaterThan(0);

        const beyond = await get(
          alice,
          `/api/datasets/mat-preview?url=${encodeURIComponent(uploadUrl)}&index=25`,
        );
        expect(beyond.status).toBe(400);
        expect(beyond.body.errors).toEqual([{ field: '/index', message: 'index must be between 1 and 24' }]);
        const other = await get(bob, `/api/datasets/mat-preview?url=${encodeURIComponent(uploadUrl)}`);
        expect(other.status).toBe(404);
      },
      120_000,
    );

    // `make install` writes the sample (make test installs first), so its absence is a failure, not a skip.
    itOnce(
      'previews the shipped synthetic sample (3064 slices)',
      async () => {
        const preview = await get(
          alice,
          '/api/datasets/mat-preview?url=samples/brain_tumor_dataset.mat&index=1',
        );
        expect(preview.status, JSON.stringify(preview.body)).toBe(200);
        expect(preview.body.data).toMatchObject({
          count: 3064,
          class_counts: { meningioma: 708, glioma: 1426, pituitary: 930 },
          patients: 233,
        });
      },
      180_000,
    );

    itOnce(
      "saving checks the range against the upload's slices; someone else's upload is refused naming file",
      async () => {
        const { id, appData } = await application(alice, uploadUrl, [1, 24]);
        const save = (who: Account, data: object) =>
          stack.app.inject({
            method: 'PUT',
            url: '/api/applications/update-app-data',
            headers: bearer(who.token),
            payload: { application_id: id, user_id: who.id, app_data: data },
          });
        expect((await save(alice, appData)).statusCode).toBe(200);
        const past = structuredClone(appData) as AppData & { dataset: Record<string, unknown> };
        past.dataset.training_range = { from_index: 1, to_index: 25 };
        const over = await save(alice, past);
        expect(over.statusCode).toBe(400);
        expect(over.json().errors).toEqual([
          { field: '/app_data/dataset/training_range/to_index', message: 'To Index must not exceed 24' },
        ]);
        const bobs = await stack.services.db.query<{ id: number }>(
          `insert into applications (user_id, app_name, app_problem_id, app_data) values ($1, 'Bob', 'brain-tumor', '{}')
         returning id`,
          [bob.id],
        );
        const foreign = await stack.app.inject({
          method: 'PUT',
          url: '/api/applications/update-app-data',
          headers: bearer(bob.token),
          payload: { application_id: Number(bobs.rows[0]!.id), user_id: bob.id, app_data: appData },
        });
        expect(foreign.statusCode).toBe(400);
        expect(foreign.json().errors[0].field).toBe('/app_data/dataset/file');
      },
      60_000,
    );

    itOnce(
      'serves the example MRI images and the sample .mat to a signed-in user, bytes as shipped',
      async () => {
        const image = await stack.app.inject({
          url: `/api/download/${encodeURIComponent('mri-examples/glioma-1.png')}/${alice.id}/${encodeURIComponent(alice.email)}`,
          headers: bearer(alice.token),
        });
        expect(image.statusCode).toBe(200);
        expect(image.headers['content-type']).toBe('image/png');
        expect(image.rawPayload.equals(readFileSync(path.resolve('samples/mri-examples/glioma-1.png')))).toBe(
          true,
        );
        const unknown = await stack.app.inject({
          url: `/api/download/${encodeURIComponent('mri-examples/../manifest.json')}/${alice.id}/${encodeURIComponent(alice.email)}`,
          headers: bearer(alice.token),
        });
        expect(unknown.statusCode).toBe(404);
        {
          const sample = await stack.app.inject({
            url: `/api/download/brain_tumor_dataset.mat/${alice.id}/${encodeURIComponent(alice.email)}`,
            headers: bearer(alice.token),
          });
          expect(sample.statusCode).toBe(200);
          expect(sample.headers['content-type']).toBe('application/octet-stream');
          expect(sample.rawPayload.subarray(0, 19).toString()).toBe('MATLAB 7.3 MAT-file');
        }
      },
    );

    itOnce(
      'refuses a run whose query, path or range is not the saved application, and hides others',
      async () => {
        const { request } = await application(alice, uploadUrl, [1, 24]);
        // (1..10 is the spec client's fixed classical query, accepted: server/spec-client.test.ts)
        const wrongRange = await execute(alice, request, { query: { end_idx: 12 } });
        expect(wrongRange.status).toBe(400);
        expect(wrongRange.body.errors?.[0]).toMatchObject({ path: '/query/end_idx', field: 'end_idx' });
        expect(wrongRange.body.message).toMatch(
          /^Failed to execute the application! The request query end_idx/,
        );
        const wrongType = await execute(alice, request, {
          path: '/brain-tumor-classification/execute-job/quantum',
        });
        expect(wrongType.status).toBe(400);
        expect(wrongType.body.errors?.[0]).toMatchObject({ path: '/path' });

        // Someone else's user id in the query, and someone else's application.
        expect((await execute(alice, request, { query: { user_id: bob.id } })).status).toBe(404);
        expect((await execute(bob, request, { query: { user_id: bob.id } })).status).toBe(404);

        // A range past the file's 24 slices: the schema's own message with the server's count.
        const past = await application(alice, uploadUrl, [1, 30]);
        const refused = await execute(alice, past.request);
        expect(refused.status).toBe(400);
        expect(refused.body.errors?.map((e) => e.message)).toContain('To Index must not exceed 24');
      },
      60_000,
    );

    it('trains the chosen range to Completed: the range and split reach the worker; metrics, history, list', async () => {
      const { id, request } = await application(alice, uploadUrl, [1, 24]);
      expect(request.query).toEqual({ user_id: alice.id, start_idx: 1, end_idx: 24 });
      const reply = await execute(alice, request);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body.message).toBe('Application is running.');
      const outputId = reply.body.data!.output_id;

      const job = await stack.services.repositories.jobs.find(outputId);
      expect(job!.kind).toBe('brain-tumor');
      expect(job!.extension).toMatchObject({
        range: { start: 1, end: 24 },
        split: 'patient',
        seed: 42,
        dataset: { label: 'tiny_synthetic.mat', synthetic: false, row_count: 24 },
      });
      expect(String((job!.extension.dataset as { path: string }).path)).toMatch(/\.mat$/);

      const final = await waitForFinal(stack, outputId, 600_000);
      const detail = await outputDetail<Record<string, any>>(stack, alice.token, outputId); // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(final.job.status, JSON.stringify(detail.output_logs?.slice(-3))).toBe('Completed');
      expect(detail.trained_model_type).toBe('FCN');
      expect(detail.metrics.accuracy).toBeGreaterThanOrEqual(0);
      expect(detail.metrics.accuracy).toBeLessThanOrEqual(1);
      expect(Object.keys(detail.metrics)).toEqual(expect.arrayContaining(['macro_f1', 'recall_glioma']));
      expect(detail.baseline.name).toBe('Majority class');
      expect(detail.output_data.result_type).toBe('Training');
      expect(detail.output_data.training_history.loss).toHaveLength(20);
      expect(detail.output_data.training_history.val_accuracy).toHaveLength(20);
      expect(detail.charts.map((c: { title: string }) => c.title)).toContain('Confusion Matrix');
      expect(detail.trained_model_path).toMatch(new RegExp(`^outputs/${outputId}/`));

      const list = await get(alice, `/api/application-outputs/${id}/all`);
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([
        expect.objectContaining({ id: outputId, result_type: 'Training', trained_model_type: 'FCN' }),
      ]);
    }, 660_000);

    // One mode is enough for this real training (registered only there: a skip fails CI).
    itOnce(
      'trains on slices 1..24 of the shipped synthetic sample, labelled synthetic in the output',
      async () => {
        const { request } = await application(alice, 'samples/brain_tumor_dataset.mat', [1, 24], undefined, {
          kind: 'sample',
          sample: 'brain-tumor-2020-2024',
          name: 'Sample Dataset 1 (2020-2024) (synthetic)',
        });
        const reply = await execute(alice, request);
        expect(reply.status, JSON.stringify(reply.body)).toBe(201);
        const outputId = reply.body.data!.output_id;
        const final = await waitForFinal(stack, outputId, 600_000);
        const detail = await outputDetail<Record<string, any>>(stack, alice.token, outputId); // eslint-disable-line @typescript-eslint/no-explicit-any
        expect(final.job.status, JSON.stringify(detail.output_logs?.slice(-3))).toBe('Completed');
        expect(detail.dataset).toMatchObject({
          label: 'Sample Dataset 1 (2020-2024) (synthetic)',
          synthetic: true,
          rows: 3064,
        });
      },
      660_000,
    );

    it('runs a quantum model through /execute-job/quantum with its quantum body, and stops it', async () => {
      const brain = stack.services.registry.getProblem('brain-tumor');
      const quantum = structuredClone(createExampleAppData(brain).appData.model_configurations) as Record<
        string,
        unknown
      >;
      const defaults = { numQubits: 4, circuitDepth: 3, patchSize: 2, stepSize: 1, numLayers: 1 };
      const extra = { unitsPerLayer: 64, dropoutRate: 0.2, activation: 'relu', batchSize: 8, model: 'QCNN' };
      const { request } = await application(alice, uploadUrl, [1, 24], {
        ...quantum,
        ...defaults,
        ...extra,
        modelType: 'quantum',
      });
      expect(request.path).toBe('/brain-tumor-classification/execute-job/quantum');
      expect(request.body).toMatchObject({ training_model_type: 'quantum', model_name: 'QCNN', n_qubits: 4 });
      const reply = await execute(alice, request);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      const outputId = reply.body.data!.output_id;
      const stop = await stack.app.inject({
        method: 'POST',
        url: `/api/brain-tumor-classification/stop-job/${outputId}`,
        headers: bearer(alice.token),
      });
      expect(stop.statusCode).toBe(202);
      const final = await waitForFinal(stack, outputId, 120_000);
      expect(final.job.status).toBe('Manual Stop');
    }, 180_000);
  });
