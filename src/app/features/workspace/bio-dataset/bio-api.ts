// The brain tumor Dataset tab's calls (issue #13, spec workspace.md section 7): the .mat upload, the
// inspection of one slice (tables and thumbnail), the example MRI images and the prediction.

import { ApiError, apiFetch, authHeaders } from '../../../api/client';
import { httpErrorText } from '../../outputs/api';
import type { Problem } from '../../../../engine';
import type { WorkspaceUser } from '../workspace-types';

export type ClassCounts = Record<string, number>;

/** One row of 'Image Data' (the worker's mat-inspect result; index is 1-based). */
export interface ImageRow {
  index: number;
  label: number;
  label_name: string;
  pid: string;
  height: number;
  width: number;
  min: number;
  max: number;
  mean: number;
}

/** GET /api/datasets/mat-preview: the dataset's facts, its first rows and one slice. */
export interface MatPreview {
  count: number;
  class_counts: ClassCounts;
  patients: number;
  image_size: [number, number];
  format: string;
  image_data: ImageRow[];
  slice: {
    index: number;
    label_name: string;
    /** base64 PNG: the slice with its mask in red and its border in yellow. */
    thumbnail_png: string;
    tumor_border: Array<[number, number]>;
    tumor_mask: {
      area: number;
      bbox: [number, number, number, number];
      rows: Array<[number, number, number]>;
    };
  };
}

/** POST /upload/{userName}/{userEmail} of a .mat (or .zip of .mat) file: its url and what it holds. */
export interface MatUpload {
  url: string;
  count?: number;
  class_counts?: ClassCounts;
}

/** Spec section 8's prefixes. */
export const UPLOAD_FAILED = 'Error uploading file.';

/** The refusal of an upload as the user reads it: the server's `message` (already 'Error parsing file: ...',
 * 'Invalid file format. ...' or 'Error uploading file. {detail}'), else 'Error uploading file. {detail}'. */
function uploadRefusal(status: number, text: string): string {
  let detail = text;
  try {
    const body = JSON.parse(text) as { detail?: unknown; message?: unknown };
    if (typeof body.message === 'string' && body.message) return body.message;
    if (typeof body.detail === 'string') detail = body.detail;
  } catch {
    // not JSON: the text as it came
  }
  return `${UPLOAD_FAILED} ${detail || `HTTP error! Status: ${status}`}`;
}

export async function uploadMatDataset(user: WorkspaceUser, file: File): Promise<MatUpload> {
  const form = new FormData();
  form.append('file', file, file.name);
  const response = await fetch(
    `/api/upload/${encodeURIComponent(user.name)}/${encodeURIComponent(user.email)}`,
    { method: 'POST', body: form, headers: authHeaders() },
  );
  const text = await response.text();
  if (!response.ok) throw new Error(uploadRefusal(response.status, text));
  return JSON.parse(text) as MatUpload;
}

/** The inspection of the dataset at `url` (an upload's url or samples/<file>), slice `index` (1-based). */
export async function fetchMatPreview(url: string, index: number, signal?: AbortSignal): Promise<MatPreview> {
  const query = new URLSearchParams({ url, index: String(index), rows: '30' });
  const reply = await apiFetch<{ data: MatPreview }>(`/datasets/mat-preview?${query.toString()}`, {
    ...(signal ? { signal } : {}),
  });
  return reply.data;
}

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
 * job path}/predict/{userId} (server/brain-tumor/predict-routes.ts predictPathOf); no problem is named here.
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
