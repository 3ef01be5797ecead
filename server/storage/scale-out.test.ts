import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, type AppData } from '../../src/engine';
import { loadConfig } from '../config';
import { openDatabase } from '../db/database';
import { createServices, type Services } from '../services';
import { fileUploadBody } from '../test-support/multipart-body';
import {
  bearer,
  executeApplication,
  outputDetail,
  postgresAvailable,
  REDIS_URL,
  redisAvailable,
  startStack,
  type TestStack,
} from '../test-support/harness';
import { startS3Server, type S3TestServer } from '../test-support/s3-server';

// Scale-out across machines: a server that runs no jobs and two BullMQ queue workers, each with a
// DATA_DIR of its own (as separate machines have), sharing only PostgreSQL, Redis and an S3-compatible
// store (moto's S3 server, started here). Every financial problem and brain tumor trains on worker A,
// then again on worker B; the server's inference and prediction read models it never wrote, and a
// dataset uploaded to the server is read by the workers with the server's copy gone.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

interface Machine {
  services: Services;
  dataDir: string;
  /** The jobs this worker's runner took from the queue. */
  ran: number[];
  closed: boolean;
}

const PROBLEMS = [
  'stock-price-prediction',
  'portfolio-optimization',
  'fraud-detection',
  'demand-forecasting',
  'brain-tumor',
] as const;
type ProblemId = (typeof PROBLEMS)[number];

describe.skipIf(!(postgresAvailable && redisAvailable))(
  'a server and two queue workers on separate data directories, sharing PostgreSQL, Redis and S3',
  () => {
    let s3: S3TestServer;
    let server: TestStack;
    let owner: { id: number; token: string; name: string; email: string };
    const workers: Machine[] = [];
    const bucket = `qml-scale-out-${Date.now().toString(36)}`;
    /** The uploaded stock CSV's URL; the server's own copy is removed after the upload. */
    let stockUpload: { url: string; rows: number; columns: string[] };
    /** The brain tumor sample uploaded as a .mat (45 MB: a multipart upload to the store), likewise. */
    let matUpload: { url: string; rows: number; columns: string[] };
    /** Output ids per worker and problem. */
    const outputs: Record<'A' | 'B', Partial<Record<ProblemId, number>>> = { A: {}, B: {} };

    const startWorker = async (name: string): Promise<Machine> => {
      const dataDir = `${server.config.dataDir}-worker-${name}`;
      const config = {
        ...loadConfig({
          DATA_DIR: dataDir,
          DATABASE_URL: server.databaseUrl!,
          REDIS_URL,
          REDIS_PREFIX: server.config.redisPrefix,
          WORKER_WARM: 'lazy',
          WORKER_CONCURRENCY: '2',
          WORKER_TIMEOUT_SECONDS: '600',
          ...s3.env(bucket),
        }),
        jwtSecret: 'w'.repeat(48),
      };
      // What `npm run worker` builds (server/queue-worker-main.ts): its own database pool and services.
      const db = await openDatabase(config);
      const services = createServices(config, db, pino({ level: 'silent' }), { runWorkers: true });
      const ran: number[] = [];
      const run = services.runner.run.bind(services.runner);
      services.runner.run = (jobId: number) => {
        ran.push(jobId);
        return run(jobId);
      };
      const machine = { services, dataDir, ran, closed: false };
      workers.push(machine);
      return machine;
    };

    /** The tiny run of each problem (seconds each): classical models on a few rows. */
    const tinyAppData = (
      problemId: ProblemId,
    ): { appData: AppData; dataset?: { rowCount: number; columns: string[] } } => {
      const problem = server.services.registry.getProblem(problemId);
      const appData = structuredClone(createExampleAppData(problem).appData) as Json;
      switch (problemId) {
        case 'stock-price-prediction':
          appData.dataset = { kind: 'csv', url: stockUpload.url, name: 'stock.csv' };
          Object.assign(appData.preprocess, {
            splitter: { from_index: 1, to_index: 120 },
            train_test_split: 0.7,
          });
          Object.assign(appData.model_configurations, {
            model_type: 'Classical',
            training_model_method: 'GRU',
            epochs: 5,
            hidden_layers: 8,
          });
          return { appData, dataset: { rowCount: stockUpload.rows, columns: stockUpload.columns } };
        case 'portfolio-optimization':
          appData.model_configurations = {
            model_type: 'Classical',
            optimizer_type: 'Classical',
            device: 'CPU',
          };
          return { appData };
        case 'fraud-detection':
          appData.model_configurations = {
            model_type: 'Classical',
            method: 'Logistic Regression',
            device: 'CPU',
          };
          return { appData };
        case 'demand-forecasting':
          Object.assign(appData.model_configurations, { epochs: 5, hidden_layers: 8 });
          return { appData };
        case 'brain-tumor':
          appData.dataset = {
            kind: 'mat',
            file: matUpload.url,
            name: 'brain.mat',
            training_range: { from_index: 1, to_index: 24 },
            split: 'patient',
          };
          Object.assign(appData.model_configurations, { model: 'FCN', learningRate: 0.01, epochs: 20 });
          return { appData, dataset: { rowCount: matUpload.rows, columns: matUpload.columns } };
      }
    };

    /** Runs every problem once through execute-job; all five are queued at once. */
    const runAll = async (label: 'A' | 'B') => {
      const runs = await Promise.all(
        PROBLEMS.map(async (problemId) => {
          const { appData, dataset } = tinyAppData(problemId);
          const run = await executeApplication(
            server,
            owner,
            { problemId, appName: `${problemId} on ${label}`, appData, ...(dataset ? { dataset } : {}) },
            600_000,
          );
          return { problemId, ...run };
        }),
      );
      for (const { problemId, outputId, final } of runs) {
        const last = final.events.filter((e) => e.type === 'error' || e.type === 'status').at(-1);
        expect(final.job.status, `${problemId} on ${label}: ${JSON.stringify(last?.payload)}`).toBe(
          'Completed',
        );
        outputs[label][problemId] = outputId;
      }
      return runs;
    };

    beforeAll(async () => {
      s3 = await startS3Server();
      await s3.createBucket(bucket);
      // The server takes requests only: its jobs run in the queue workers.
      server = await startStack(
        { database: 'postgres', queue: 'bullmq' },
        { ...s3.env(bucket), WORKER_TIMEOUT_SECONDS: '600' },
        { runWorkers: false },
      );
      const token = await server.userToken('scale@example.com');
      const user = (await server.services.repositories.users.findByEmail('scale@example.com'))!;
      owner = { id: user.id, token, name: user.name, email: user.email };

      // A stock CSV and the brain tumor .mat uploaded to the server, then removed from the server's disk:
      // the workers (and the server's inference and preview) can only have them from the store.
      const uploadFile = async (content: Buffer | string, filename: string, type: string) => {
        const body = fileUploadBody(content, { filename, type });
        const reply = await server.app.inject({
          method: 'POST',
          url: `/api/upload/${encodeURIComponent(owner.name)}/${encodeURIComponent(owner.email)}`,
          headers: { ...bearer(token), ...body.headers },
          payload: body.payload,
        });
        expect(reply.statusCode, reply.body).toBe(201);
        const uploaded = reply.json() as Json;
        const record = (await server.services.datasets.store.findOwned(owner.id, uploaded.filename))!;
        rmSync(server.services.datasets.store.pathOf(record));
        return { url: String(uploaded.url), rows: record.row_count, columns: [...record.columns] };
      };
      const csv = readFileSync(server.services.samples.pathOf('apple_google_stock.csv'), 'utf8')
        .split('\n')
        .slice(0, 201)
        .join('\n');
      stockUpload = await uploadFile(`${csv}\n`, 'stock.csv', 'text/csv');
      const mat = readFileSync(server.services.samples.pathOf('brain_tumor_dataset.mat'));
      matUpload = await uploadFile(mat, 'brain.mat', 'application/octet-stream');
    }, 300_000);

    afterAll(async () => {
      for (const worker of workers) if (!worker.closed) await worker.services.close();
      await server?.close();
      await s3?.stop();
      for (const worker of workers) rmSync(worker.dataDir, { recursive: true, force: true });
    });

    it('runs every financial problem and brain tumor to Completed on worker A, then on worker B', async () => {
      const a = await startWorker('A');
      await runAll('A');
      expect(a.ran.sort()).toEqual(Object.values(outputs.A).sort());
      // Worker A goes away (another machine takes over); B has never seen A's files.
      await a.services.close();
      a.closed = true;
      const b = await startWorker('B');
      await runAll('B');
      expect(b.ran.sort()).toEqual(Object.values(outputs.B).sort());

      for (const [label, machine] of [
        ['A', a],
        ['B', b],
      ] as const) {
        const other = label === 'A' ? outputs.B : outputs.A;
        for (const problemId of PROBLEMS) {
          const id = outputs[label][problemId]!;
          const detail = await outputDetail<Json>(server, owner.token, id);
          if (detail.trained_model_path) {
            // Each worker wrote its models to its own DATA_DIR, never the other's nor the server's.
            expect(existsSync(path.join(machine.dataDir, detail.trained_model_path))).toBe(true);
            expect(existsSync(path.join(server.config.dataDir, 'outputs', String(id)))).toBe(false);
          }
          expect(existsSync(path.join(machine.dataDir, 'outputs', String(other[problemId])))).toBe(false);
        }
        // The uploaded CSV came from the store into the worker's cache by its sha256.
        const stock = await outputDetail<Json>(
          server,
          owner.token,
          outputs[label]['stock-price-prediction']!,
        );
        expect(existsSync(path.join(machine.dataDir, 'store-cache', 'sha256', stock.dataset.sha256))).toBe(
          true,
        );
      }
    }, 1_500_000);

    it("applies each worker's trained models on the server, which never had their files", async () => {
      const fraudSample = server.services.samples.find('credit_card_fraud_synthetic.csv')!;
      const cases = [
        {
          problemId: 'stock-price-prediction',
          features: ['Close', 'High', 'Low', 'Open'],
          data_url: stockUpload.url, // its server copy is gone too: read from the store by its key
        },
        {
          problemId: 'demand-forecasting',
          features: ['Temperature', 'Fuel_Price', 'CPI', 'Unemployment'],
          data_url: 'samples/product_demand.csv',
        },
        {
          problemId: 'fraud-detection',
          features: fraudSample.columns.filter((c) => c !== 'Class'),
          data_url: 'samples/credit_card_fraud_synthetic.csv',
        },
      ] as const;
      for (const label of ['A', 'B'] as const) {
        for (const { problemId, features, data_url } of cases) {
          const outputId = outputs[label][problemId]!;
          const { rows } = await server.services.db.query<{ application_id: number }>(
            'select application_id from jobs where id = $1',
            [outputId],
          );
          const reply = await server.app.inject({
            method: 'POST',
            url: `/api/${problemId}/inference/${owner.id}/${rows[0]!.application_id}`,
            headers: bearer(owner.token),
            payload: { features, data_url, output_id: outputId },
          });
          expect(reply.statusCode, `${problemId} (${label}): ${reply.body}`).toBe(200);
          const data = (reply.json() as Json).data;
          expect(data.output_id).toBe(outputId);
          expect(data.predicted.length).toBeGreaterThan(0);
        }
      }
    }, 300_000);

    it("previews the uploaded .mat's slices on the server, which no longer has it on disk", async () => {
      const reply = await server.app.inject({
        url: `/api/datasets/mat-preview?url=${encodeURIComponent(matUpload.url)}&index=1`,
        headers: bearer(owner.token),
      });
      expect(reply.statusCode, reply.body.slice(0, 300)).toBe(200);
      expect((reply.json() as Json).data.count).toBe(matUpload.rows);
    }, 120_000);

    it('serves an avatar from the store once the server that received it has no copy (another server)', async () => {
      const png = readFileSync(path.resolve('samples/mri-examples/glioma-1.png'));
      const body = fileUploadBody(png, { filename: 'me.png', type: 'image/png' });
      const reply = await server.app.inject({
        method: 'POST',
        url: '/api/upload-image',
        headers: { ...bearer(owner.token), ...body.headers },
        payload: body.payload,
      });
      expect(reply.statusCode, reply.body).toBe(200);
      const imageUrl = String((reply.json() as Json).image_url);
      rmSync(path.join(server.config.dataDir, 'images', path.basename(imageUrl)));
      const served = await server.app.inject({ url: imageUrl });
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals(png)).toBe(true);
    });

    it('predicts a brain tumor class on the server with the model worker B trained', async () => {
      const applicationId = (
        await server.services.db.query<{ application_id: number }>(
          'select application_id from jobs where id = $1',
          [outputs.B['brain-tumor']!],
        )
      ).rows[0]!.application_id;
      const image = readFileSync(path.resolve('samples/mri-examples/glioma-1.png'));
      const body = fileUploadBody(image, { filename: 'glioma-1.png', type: 'image/png' });
      const reply = await server.app.inject({
        method: 'POST',
        url: `/api/brain-tumor-classification/predict/${owner.id}?application_id=${applicationId}&model_name=densenet121`,
        headers: { ...bearer(owner.token), ...body.headers },
        payload: body.payload,
      });
      expect(reply.statusCode, reply.body).toBe(200);
      const data = reply.json() as Json;
      expect(data.model.output_id).toBe(outputs.B['brain-tumor']);
      expect(Object.keys(data.probabilities)).toContain(data.prediction);
      // The server fetched B's bundle from the store into its own DATA_DIR.
      expect(existsSync(path.join(server.config.dataDir, 'outputs', String(outputs.B['brain-tumor'])))).toBe(
        true,
      );
    }, 300_000);
  },
);
