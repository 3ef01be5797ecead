import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCHEMAS_DIR, loadRegistry } from '../../src/engine/node/load-schemas';
import { buildApp } from '../app';
import { ApplicationsRepository } from '../applications/applications-repository';
import { createPredictService } from './predict-service';
import { ADMIN, bearer, MODES, startStack, type TestStack } from '../test-support/harness';

// The predict route is the problem file's, not brain tumor's by name: a new problem file with a
// predict block (here a copy of brain tumor's under another id and API name, in a copy of schemas/)
// gets POST /{its api}/predict/{userId} with its own messages, and no code changes.

const NEW_ID = 'retina-scan';
const NEW_API = 'retina-scan-classification';
const NO_MODEL = 'No {kind} retina model yet: train one first.';

/** A copy of schemas/ with problems/retina-scan.json: brain tumor's file with its own id, API name and message. */
function schemasWithNewProblem(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'qml-schemas-'));
  cpSync(DEFAULT_SCHEMAS_DIR, dir, { recursive: true });
  const brain = JSON.parse(readFileSync(path.join(dir, 'problems', 'brain-tumor.json'), 'utf8')) as {
    id: string;
    name: string;
    listed: boolean;
    job: { request: { path: string } };
    predict: { messages: Record<string, string> };
  };
  brain.id = NEW_ID;
  brain.name = 'Retina Scan';
  brain.listed = false;
  brain.job.request.path = brain.job.request.path.replace('brain-tumor-classification', NEW_API);
  brain.predict.messages.noModel = NO_MODEL;
  writeFileSync(path.join(dir, 'problems', `${NEW_ID}.json`), JSON.stringify(brain, null, 2));
  return dir;
}

describe.each(MODES.filter((m) => m.queue === 'in-process'))(
  'predict routes from problem files on $database',
  (mode) => {
    let stack: TestStack;
    let schemasDir: string;
    let app: Awaited<ReturnType<typeof buildApp>>;
    let ownerId: number;

    beforeAll(async () => {
      if (!mode.available) return;
      schemasDir = schemasWithNewProblem();
      stack = await startStack(mode);
      // The same services over the registry of the copied schemas (what a server started on them has).
      const registry = loadRegistry(schemasDir);
      const services = { ...stack.services, registry };
      services.predict = createPredictService(
        stack.config,
        { ...services, jobs: stack.services.repositories.jobs },
        pino({ level: 'silent' }),
      );
      app = await buildApp(services, { serveWebApp: false });
      ownerId = (await stack.services.repositories.users.findByEmail(ADMIN.email))!.id;
    });
    afterAll(async () => {
      await app?.close();
      await stack?.close();
      if (schemasDir) rmSync(schemasDir, { recursive: true, force: true });
    });

    const applicationOf = async (problemId: string) =>
      (
        await new ApplicationsRepository(stack.services.db).create({
          userId: ownerId,
          appName: `${problemId} app`,
          appProblemId: problemId,
          status: 'active',
          appData: {},
        })
      ).id;

    const predict = (api: string, applicationId: number) =>
      app.inject({
        method: 'POST',
        url: `/api/${api}/predict/${ownerId}?application_id=${applicationId}&model_name=densenet121`,
        headers: bearer(stack.adminToken),
        payload: { image_url: 'https://example.com/scan.png' },
      });

    it.skipIf(!mode.available)(
      'a new problem file with a predict block gets its own predict route and messages',
      async () => {
        const retina = await applicationOf(NEW_ID);
        const reply = await predict(NEW_API, retina);
        // The route exists, finds the application of that problem and answers with that file's message.
        expect(reply.statusCode).toBe(409);
        expect(reply.json()).toMatchObject({
          success: false,
          detail: NO_MODEL.replace('{kind}', 'classical'),
          errors: [{ field: '/model_name' }],
        });
        // An application of another problem is not one of this route's.
        const brain = await applicationOf('brain-tumor');
        expect((await predict(NEW_API, brain)).statusCode).toBe(404);
        // Brain tumor's own route is unchanged, with its own message.
        const brainReply = await predict('brain-tumor-classification', brain);
        expect(brainReply.statusCode).toBe(409);
        expect((brainReply.json() as { detail: string }).detail).toBe(
          'No trained classical model for this application yet. Train one first.',
        );
        expect((await predict('brain-tumor-classification', retina)).statusCode).toBe(404);
        // The OpenAPI document lists both, each from its file.
        const doc = (await app.inject({ url: '/api/openapi.json' })).json() as {
          paths: Record<
            string,
            { post?: { parameters?: { in: string; name: string; required?: boolean }[] } }
          >;
        };
        expect(Object.keys(doc.paths)).toEqual(
          expect.arrayContaining([
            `/api/${NEW_API}/predict/{userId}`,
            '/api/brain-tumor-classification/predict/{userId}',
          ]),
        );
        // model_name is refused when missing (by the service, in the file's words): the document says required.
        for (const api of [NEW_API, 'brain-tumor-classification']) {
          const query = (doc.paths[`/api/${api}/predict/{userId}`]?.post?.parameters ?? []).filter(
            (p) => p.in === 'query',
          );
          expect(
            query.map((p) => [p.name, p.required ?? false]),
            api,
          ).toEqual(
            expect.arrayContaining([
              ['application_id', true],
              ['model_name', true],
            ]),
          );
        }
      },
    );

    it.skipIf(!mode.available)('a problem without a predict block has no predict route', async () => {
      const stock = await applicationOf('stock-price-prediction');
      expect((await predict('stock-price-prediction', stock)).statusCode).toBe(404);
      const doc = (await app.inject({ url: '/api/openapi.json' })).json() as {
        paths: Record<string, unknown>;
      };
      expect(Object.keys(doc.paths).filter((p) => p.includes('/predict/'))).toHaveLength(2);
    });
  },
);
