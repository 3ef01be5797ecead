import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationsRepository } from '../applications/applications-repository';
import type { UserRecord } from '../auth/users-repository';
import { UrlFetcher } from '../datasets/url-fetcher';
import { JobStatus } from '../jobs/job-states';
import { WORKER_DIR } from '../jobs/worker-process';
import { bearer, outputDetail, startStack, type TestStack } from '../test-support/harness';
import { fileUploadBody } from '../test-support/multipart-body';
import { PredictService } from './predict-service';

// Brain tumor prediction end to end: POST /api/brain-tumor-classification/predict/{userId} through the
// real worker's predict command, with a real (tiny, untrained) FCN bundle saved by the worker's own
// model_store into a Completed training output, and images written by Pillow and pydicom.

const PYTHON = path.join(WORKER_DIR, '.venv', 'bin', 'python');

/** Writes the bundle and the test images with the worker's libraries (a tiny model: 32 x 32 input). */
const SETUP_SCRIPT = `
import sys, io
from pathlib import Path
import numpy as np, torch
from PIL import Image
from qmlstudio_worker.problems.brain_tumor.model_store import save_bundle
from qmlstudio_worker.problems.brain_tumor.models import build_model
bundle, images = Path(sys.argv[1]), Path(sys.argv[2])
torch.manual_seed(0)
save_bundle(bundle, model_name="FCN", model_type="classical", model=build_model("FCN"), config={},
            input_size=32, classes=("meningioma", "glioma", "pituitary"))
rng = np.random.default_rng(0)
y, x = np.mgrid[0:512, 0:512] / 512
slice_ = rng.uniform(0, 8, (512, 512))
head = ((x - 0.5) / 0.36) ** 2 + ((y - 0.5) / 0.42) ** 2 <= 1
slice_[head] = rng.uniform(80, 150, int(head.sum()))
Image.fromarray(slice_.astype(np.uint8)).save(images / "slice.png")
photo = np.stack([x * 255, y * 255, 255 - x * 255], axis=2).astype(np.uint8)
Image.fromarray(photo).save(images / "photo.png")
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.uid import CTImageStorage, ExplicitVRLittleEndian, generate_uid
ds = Dataset()
ds.Modality = "CT"
ds.SOPClassUID = CTImageStorage
ds.SOPInstanceUID = generate_uid()
ds.Rows, ds.Columns = 16, 16
ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, "MONOCHROME2"
ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 16, 15, 0
ds.PixelData = np.zeros((16, 16), np.uint16).tobytes()
ds.file_meta = FileMetaDataset()
ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
ds.file_meta.MediaStorageSOPClassUID = CTImageStorage
ds.file_meta.MediaStorageSOPInstanceUID = ds.SOPInstanceUID
ds.save_as(images / "ct.dcm", enforce_file_format=True)
`;

interface Account {
  user: UserRecord;
  token: string;
}

interface PredictReply {
  success: boolean;
  prediction: string;
  probabilities: Record<string, number>;
  message: string;
  output_id: number;
  model: { output_id: number; model_name: string };
  detail: string;
  errors?: { field: string; message: string }[];
}

describe('brain tumor prediction', () => {
  let stack: TestStack;
  let owner: Account;
  let stranger: Account;
  let appId: number;
  let trainingId: number;
  let images: string;
  let messages: Record<string, string>;

  const account = async (email: string): Promise<Account> => {
    const token = await stack.userToken(email);
    return { user: (await stack.services.repositories.users.findByEmail(email))!, token };
  };

  const predictUrl = (userId: number, applicationId: number, model = 'densenet121') =>
    `/api/brain-tumor-classification/predict/${userId}?application_id=${applicationId}&model_name=${model}`;

  const upload = async (
    who: Account,
    content: Buffer | string,
    options: { filename?: string; userId?: number; applicationId?: number; model?: string } = {},
  ) => {
    const body = fileUploadBody(content, { filename: options.filename ?? 'scan.png', type: 'image/png' });
    const reply = await stack.app.inject({
      method: 'POST',
      url: predictUrl(options.userId ?? who.user.id, options.applicationId ?? appId, options.model),
      headers: { ...bearer(who.token), ...body.headers },
      payload: body.payload,
    });
    return { status: reply.statusCode, body: reply.json() as PredictReply };
  };

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    owner = await account('owner@example.com');
    stranger = await account('stranger@example.com');
    messages = stack.services.registry.getProblem('brain-tumor').predict!.image!.messages!;
    appId = (
      await new ApplicationsRepository(stack.services.db).create({
        userId: owner.user.id,
        appName: 'brain tumor predict test',
        appProblemId: 'brain-tumor',
        status: 'active',
        appData: {},
      })
    ).id;
    images = path.join(stack.config.dataDir, 'test-images');
    mkdirSync(images, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
  });

  const FCN_RESULT = {
    problem: 'brain-tumor',
    model: 'FCN',
    model_type: 'Classical',
    trained_model_path: 'model.json',
  };

  /** A Completed classical training output of the application with `result`; its bundle written when asked. */
  const completedTraining = async (result: object = FCN_RESULT, writeBundle = true) => {
    const jobs = stack.services.repositories.jobs;
    const job = await stack.services.db.transaction((tx) =>
      jobs.create(tx, {
        kind: 'brain-tumor',
        ownerId: owner.user.id,
        params: { model_name: 'FCN', training_model_type: 'classical' },
        applicationId: appId,
        name: 'brain tumor predict test #{id}',
      }),
    );
    if (writeBundle) {
      const bundle = path.join(stack.config.dataDir, 'outputs', String(job.id));
      execFileSync(PYTHON, ['-c', SETUP_SCRIPT, bundle, images], { cwd: WORKER_DIR, stdio: 'pipe' });
    }
    await stack.services.runner.transition(job.id, [JobStatus.queued], JobStatus.running);
    await stack.services.runner.transition(job.id, [JobStatus.running], JobStatus.completed, { result });
    return job.id;
  };

  it('refuses another user id in the path and another user’s application as not found', async () => {
    const png = Buffer.from('\x89PNG\r\n\x1a\n');
    const wrongUser = await upload(owner, png, { userId: stranger.user.id });
    expect(wrongUser.status).toBe(404);
    const notTheirs = await upload(stranger, png, { userId: stranger.user.id });
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.body.detail).toBe('Application not found');
  });

  it('says in plain words that no model is trained yet (409), for each model choice', async () => {
    const classical = await upload(owner, 'anything');
    expect(classical.status).toBe(409);
    expect(classical.body.detail).toBe(
      'No trained classical model for this application yet. Train one first.',
    );
    const quantum = await upload(owner, 'anything', { model: 'qmodel' });
    expect(quantum.body.detail).toBe('No trained quantum model for this application yet. Train one first.');
    const unknown = await upload(owner, 'anything', { model: 'resnet' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.[0]?.field).toBe('/model_name');
  });

  it('predicts a PNG slice with the latest trained model and keeps a Prediction output', async () => {
    trainingId = await completedTraining();
    const { status, body } = await upload(owner, readFileSync(path.join(images, 'slice.png')), {
      filename: 'slice.png',
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(['meningioma', 'glioma', 'pituitary']).toContain(body.prediction);
    expect(Object.keys(body.probabilities).sort()).toEqual(['glioma', 'meningioma', 'pituitary']);
    const total = Object.values(body.probabilities).reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 4);
    expect(body.model).toEqual({ output_id: trainingId, model_name: 'FCN' });

    const output = await stack.services.repositories.jobs.find(body.output_id);
    expect(output?.status).toBe('Completed');
    expect(Number(output?.application_id)).toBe(appId);
    const data = output?.result?.output_data as { result_type: string; prediction: string; image: object };
    expect(data.result_type).toBe('Prediction');
    expect(data.prediction).toBe(body.prediction);
    expect(data.image).toMatchObject({ name: 'slice.png', kind: 'png', width: 512, height: 512 });
    expect(readdirSync(path.join(stack.config.dataDir, 'outputs', String(body.output_id)))).toEqual([
      'image.png',
    ]);

    const list = await stack.app.inject({
      url: `/api/application-outputs/${appId}/all`,
      headers: bearer(owner.token),
    });
    const items = (list.json() as { data: { id: number; result_type: string; trained_model_type: string }[] })
      .data;
    expect(items.find((o) => Number(o.id) === body.output_id)).toMatchObject({
      result_type: 'Prediction',
      trained_model_type: 'FCN',
    });
    const detail = await outputDetail<{ status: string; output_data: Record<string, unknown> }>(
      stack,
      owner.token,
      body.output_id,
    );
    expect(detail.status).toBe('Completed');
    expect(detail.output_data).toMatchObject({
      result_type: 'Prediction',
      prediction: body.prediction,
      model: { output_id: trainingId, model_name: 'FCN' },
    });
  }, 120_000);

  it('reads the trainings through the result contract: a newer result that breaks it names no model', async () => {
    // Model type and path as a model's would read, but metrics that are not a metric map: outside the
    // contract (and no bundle on disk).
    await completedTraining({ ...FCN_RESULT, metrics: 'none' }, false);
    const { status, body } = await upload(owner, readFileSync(path.join(images, 'slice.png')), {
      filename: 'slice.png',
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.model).toEqual({ output_id: trainingId, model_name: 'FCN' });
  }, 120_000);

  it('refuses a file that is not an image by its content, whatever its name', async () => {
    const { status, body } = await upload(owner, 'patient notes\n'.repeat(50), { filename: 'scan.png' });
    expect(status).toBe(400);
    expect(body.detail).toBe(messages.type);
    expect(body.errors).toEqual([{ field: '/file', message: messages.type }]);
  }, 60_000);

  it('refuses a colour photo as not an MRI, and a DICOM that is not MR', async () => {
    const photo = await upload(owner, readFileSync(path.join(images, 'photo.png')));
    expect(photo.status).toBe(400);
    expect(photo.body.detail).toBe(messages.notMri);
    const ct = await upload(owner, readFileSync(path.join(images, 'ct.dcm')), { filename: 'ct.dcm' });
    expect(ct.status).toBe(400);
    expect(ct.body.detail).toContain('modality is CT, not MR');
  }, 60_000);

  it('refuses a file over 5 MB with the spec’s message (413)', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 10, 1);
    const { status, body } = await upload(owner, big);
    expect(status).toBe(413);
    expect(body.detail).toBe('File too large. Please upload an image smaller than 5MB.');
  });

  it('asks for an image when the request carries none', async () => {
    const reply = await stack.app.inject({
      method: 'POST',
      url: predictUrl(owner.user.id, appId),
      headers: bearer(owner.token),
      payload: {},
    });
    expect(reply.statusCode).toBe(400);
    expect((reply.json() as PredictReply).detail).toBe('Please select an image before proceeding!');
  });

  it('fetches an image_url (a test server let through the address policy) and refuses one over 5 MB', async () => {
    const slice = readFileSync(path.join(images, 'slice.png'));
    const server = http.createServer((req, res) => {
      res.end(req.url === '/big.png' ? Buffer.alloc(5 * 1024 * 1024 + 1, 7) : slice);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { services, config } = stack;
    const service = new PredictService(
      {
        db: services.db,
        applications: new ApplicationsRepository(services.db),
        jobs: services.repositories.jobs,
        runner: services.runner,
        registry: services.registry,
        launcher: services.launcher,
        fetcherFor: () =>
          new UrlFetcher({
            dataDir: config.dataDir,
            maxBytes: 5 * 1024 * 1024,
            timeoutMs: 10_000,
            subject: 'image URL',
            allowAddress: (address) => address === '127.0.0.1',
          }),
        log: pino({ level: 'silent' }),
      },
      { outputsDir: path.join(config.dataDir, 'outputs') },
    );
    const scratch = await service.scratchDir();
    try {
      const request = {
        problemId: 'brain-tumor',
        userId: owner.user.id,
        applicationId: appId,
        modelName: 'densenet121',
      };
      const fetched = await service.predict(
        owner.user,
        { ...request, image: { kind: 'url', url: `${base}/scans/slice.png` } },
        scratch,
      );
      expect(fetched.ok && fetched.data.prediction).toMatch(/^(meningioma|glioma|pituitary)$/);
      const big = await service.predict(
        owner.user,
        { ...request, image: { kind: 'url', url: `${base}/big.png` } },
        scratch,
      );
      expect(big).toMatchObject({ ok: false, status: 413, detail: messages.size });
      expect(!big.ok && big.errors?.[0]?.field).toBe('/image_url');
    } finally {
      server.close();
      await rm(scratch, { recursive: true, force: true });
    }
  }, 60_000);

  it('never fetches an image_url on a loopback address', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end(readFileSync(path.join(images, 'slice.png')));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const reply = await stack.app.inject({
        method: 'POST',
        url: predictUrl(owner.user.id, appId),
        headers: bearer(owner.token),
        payload: { image_url: `http://127.0.0.1:${port}/slice.png` },
      });
      expect(reply.statusCode).toBe(400);
      const body = reply.json() as PredictReply;
      expect(body.errors?.[0]?.field).toBe('/image_url');
      expect(body.detail).toContain('loopback');
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
    expect(existsSync(images)).toBe(true);
  });
});
