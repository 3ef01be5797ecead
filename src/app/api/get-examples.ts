import type { paths } from '../../generated/api';
import { apiFetch } from './client';

type Reply = paths['/api/examples']['get']['responses'][200]['content']['application/json'];

/**
 * One example of GET /api/examples (public): one per listed problem, from its schema file's
 * `example`; `workspace` ('development' | 'developmentbio') is the route the started example opens.
 */
export type Example = Reply['data'][number];

let pending: Promise<Example[]> | null = null;

/**
 * GET /api/examples: the example gallery's examples, in category then problem order. Callers that
 * ask while a request is under way share it (the landing's demo sections mount together); once it
 * settles the next call asks again.
 */
export function getExamples(): Promise<Example[]> {
  pending ??= apiFetch<Reply>('/examples')
    .then((reply) => reply.data)
    .finally(() => {
      pending = null;
    });
  return pending;
}
