import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { createExampleAppData, type Registry } from '../../src/engine';
import { envelope, errorReplies, PUBLIC } from '../platform/reply-schemas';
import { categorySchema, exampleSchema } from './application-schemas';

/** The categories with their listed problems, in category order then problem order. */
export function applicationCategories(registry: Registry) {
  return registry.listCategories().map((category) => ({
    id: category.id,
    name: category.name,
    label: category.label,
    app_problems: category.problems.map((problem) => ({
      id: problem.id,
      name: problem.name,
      workspace: problem.workspace,
      description: problem.description,
      useCases: problem.useCases,
    })),
  }));
}

/** One example per listed problem the gallery shows, with its app_data and its sample dataset. */
export function examples(registry: Registry) {
  return registry.listExamples().map((entry) => {
    const problem = registry.getProblem(entry.problemId);
    const { appName, appData } = createExampleAppData(problem);
    const dataset = (appData.dataset ?? {}) as { sample?: unknown };
    const sample = problem.dataset.samples.find((s) => s.id === dataset.sample) ?? problem.dataset.samples[0];
    return {
      problem_id: problem.id,
      problem_name: problem.name,
      category: { id: problem.category, name: problem.categoryInfo.name, label: problem.categoryInfo.label },
      workspace: problem.workspace,
      app_name: appName,
      // The example's own text (what it does, on which data), else the problem's.
      description: entry.description,
      app_data: appData as Record<string, unknown>,
      dataset: { label: sample?.label ?? '', file: sample?.file ?? '' },
    };
  });
}

/** The public catalogue: application categories (landing cards, create dialog) and the example gallery. */
export const catalogRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { registry: Registry } }> = async (
  app,
  { registry },
) => {
  const categories = applicationCategories(registry);
  const gallery = examples(registry);

  app.get(
    '/application-categories/all',
    {
      schema: {
        tags: ['applications'],
        summary: 'Application categories with their problems (unlisted problems left out)',
        security: PUBLIC,
        response: { 200: envelope({ type: 'array', items: categorySchema }), ...errorReplies(400) },
      },
    },
    async (_request, reply) => reply.code(200).send({ success: true, data: categories }),
  );

  app.get(
    '/examples',
    {
      schema: {
        tags: ['applications'],
        summary: 'The example gallery: one example application per listed problem, on the shipped samples',
        security: PUBLIC,
        response: { 200: envelope({ type: 'array', items: exampleSchema }), ...errorReplies(400) },
      },
    },
    async (_request, reply) => reply.code(200).send({ success: true, data: gallery }),
  );
};
