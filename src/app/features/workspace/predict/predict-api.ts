// The predict capability's calls (spec workspace.md section 7): the shipped example images and the
// prediction of a problem with a predict block.

import { ApiError, authHeaders } from '../../../api/client';
import { httpErrorText } from '../../../api/outputs';
import type { Problem } from '../../../../engine';
import type { WorkspaceUser } from '../workspace-types';

/** Where the browser reads a shipped sample file (the download route the samples use). */
export const samplePath = (file: string, user: WorkspaceUser): string =>
  `/api/download/${encodeURIComponent(file)}/${user.id}/${encodeURIComponent(user.email)}`;

/** Reads a shipped example image (a PNG) as a Blob typed image/png; rejects on any non-200 reply. */
export async function fetchExampleImage(file: string, user: WorkspaceUser): Promise<Blob> {
  const response = await fetch(samplePath(file, user), { headers: authHeaders() });
  if (!response.ok) throw new Error(`HTTP error! Status: ${response.status}`);
  // The download route may label any shipped file as a download; the examples are PNGs.
  return new Blob([await response.arrayBuffer()], { type: 'image/png' });
}

/** POST /{api name}/predict/{userId} (brain tumor: /brain-tumor-classification/...): a prediction's reply. */
export interface Prediction {
  success: boolean;
  prediction: string;
  probabilities: Record<string, number>;
  message?: string;
  output_id?: number;
  model?: { output_id: number; model_name: string };
}

export type PredictImage = { file: File } | { imageUrl: string };

/**
 * A problem's predict path, as the server builds it from the problem file: /api/{the first segment of its
 * job path}/predict/{userId} (the server's predictPathOf); no problem is named here.
 */
export function predictPath(problem: Pick<Problem, 'id' | 'job'>, userId: number): string {
  const apiName = problem.job.request.path.split('/').filter(Boolean)[0] ?? problem.id;
  return `/api/${encodeURIComponent(apiName)}/predict/${userId}`;
}

/**
 * The prediction call of a problem with a predict block: the image as multipart `file`, or `image_url` as
 * JSON. A refusal rejects with 'HTTP error! status: {code}, details: {text}' (spec section 7), the text
 * being the server's message.
 */
export async function predictImage(
  problem: Pick<Problem, 'id' | 'job'>,
  userId: number,
  applicationId: number,
  modelName: string,
  image: PredictImage,
): Promise<Prediction> {
  const query = new URLSearchParams({ application_id: String(applicationId), model_name: modelName });
  const headers = new Headers(authHeaders());
  let body: BodyInit;
  if ('file' in image) {
    const form = new FormData();
    form.append('file', image.file, image.file.name);
    body = form;
  } else {
    headers.set('content-type', 'application/json');
    body = JSON.stringify({ image_url: image.imageUrl });
  }
  const response = await fetch(`${predictPath(problem, userId)}?${query.toString()}`, {
    method: 'POST',
    headers,
    body,
  });
  const text = await response.text();
  if (!response.ok) throw new ApiError(httpErrorText(response.status, text), response.status, text);
  return JSON.parse(text) as Prediction;
}
