// The .mat slices dataset's calls (spec workspace.md section 7): the .mat upload and the inspection of
// one slice (tables and thumbnail).

import { apiFetch, authHeaders } from '../../../../api/client';
import type { WorkspaceUser } from '../../workspace-types';

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
