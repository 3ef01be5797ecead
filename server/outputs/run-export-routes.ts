import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { ApplicationsRepository } from '../applications/applications-repository';
import type { UserRecord } from '../auth/users-repository';
import type { Database } from '../db/database';
import { JobsRepository } from '../jobs/jobs-repository';
import { idParam } from '../platform/id-schemas';
import { errorReplies, sendRefusal } from '../platform/reply-schemas';
import { OUTPUT_NOT_FOUND } from './outputs-service';
import {
  attachmentOf,
  exportedRunOf,
  exportFileBase,
  exportNotebook,
  exportScript,
  type ExportedRun,
} from './run-export';

/** A completed training output of the caller's, ready to export; else a 404 or 409 refusal. */
export class RunExportService {
  private readonly jobs: JobsRepository;
  private readonly applications: ApplicationsRepository;

  constructor(db: Database) {
    this.jobs = new JobsRepository(db);
    this.applications = new ApplicationsRepository(db);
  }

  async run(
    caller: UserRecord,
    outputId: number,
  ): Promise<{ ok: true; value: ExportedRun } | { ok: false; status: 404 | 409; detail: string }> {
    const job = await this.jobs.find(outputId);
    // Owner only: someone else's output (an admin's too) is not found, as for a stranger.
    if (!job || job.application_id === null || job.owner_id !== caller.id) {
      return { ok: false, status: 404, detail: OUTPUT_NOT_FOUND };
    }
    const app = await this.applications.find(job.application_id);
    const found = exportedRunOf(job, app?.app_name ?? job.name ?? 'QML Studio run');
    return found.ok ? { ok: true, value: found.run } : { ok: false, status: 409, detail: found.detail };
  }
}

const FORMATS = {
  script: {
    extension: 'py',
    type: 'text/x-python; charset=utf-8',
    describe: 'The Python script',
    write: exportScript,
  },
  notebook: {
    extension: 'ipynb',
    type: 'application/x-ipynb+json; charset=utf-8',
    describe: 'The Jupyter notebook (nbformat 4.5 JSON)',
    write: exportNotebook,
  },
} as const;

/**
 * Runs exported as code: `GET /application-outputs/{id}/export/script` and `.../export/notebook` give a
 * completed training output as a Python script or a notebook that trains it again with the worker package
 * (same body after defaults, seed, dataset by sha256, library versions checked). Owner only.
 */
export const runExportRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { exports: RunExportService };
}> = async (app, { exports }) => {
  for (const [format, spec] of Object.entries(FORMATS)) {
    app.get(
      `/application-outputs/:outputId/export/${format}`,
      {
        onRequest: app.requireUser,
        schema: {
          tags: ['outputs'],
          summary: `A completed training output as ${format === 'script' ? 'a Python script' : 'a Jupyter notebook'} that trains it again with the worker package and prints its metrics (same body after defaults, seed, dataset checked by sha256, library versions checked); owner only`,
          params: idParam('outputId'),
          response: {
            200: {
              description: `${spec.describe}, as an attachment named after the application`,
              content: { [spec.type.split(';')[0]!]: { schema: { type: 'string' } } },
            },
            ...errorReplies(400, 401, 404, 409),
          },
        },
      },
      async (request, reply) => {
        const outcome = await exports.run(request.currentUser!, request.params.outputId);
        if (!outcome.ok) return sendRefusal(reply, outcome);
        return reply
          .code(200)
          .header('content-type', spec.type)
          .header('content-disposition', attachmentOf(`${exportFileBase(outcome.value)}.${spec.extension}`))
          .header('cache-control', 'private, no-cache')
          .send(spec.write(outcome.value));
      },
    );
  }
};
