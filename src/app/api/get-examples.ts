import type { paths } from '../../generated/api';
import { apiFetch } from './client';

type Reply = paths['/api/examples']['get']['responses'][200]['content']['application/json'];

/**
 * One example of GET /api/examples (public): one per listed problem, from its schema file's
 * `example`; `workspace` ('development' | 'developmentbio') is the route the started example opens.
 */
export type Example = Reply['data'][number];

/** GET /api/examples: the example gallery's examples, in category then problem order. */
export async function getExamples(): Promise<Example[]> {
  return (await apiFetch<Reply>('/examples')).data;
}
