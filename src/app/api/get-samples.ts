import type { paths } from '../../generated/api';
import { apiFetch } from './client';

type Reply = paths['/api/samples']['get']['responses'][200]['content']['application/json'];

/** One shipped sample dataset: label, rows, whether synthetic, source, licence. */
export type SampleInfo = Reply['data'][number];

/** GET /api/samples: the sample datasets shipped in samples/ (public). */
export async function getSamples(): Promise<SampleInfo[]> {
  return (await apiFetch<Reply>('/samples')).data;
}
