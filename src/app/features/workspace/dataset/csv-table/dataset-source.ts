import { ApiError, authHeaders } from '../../../../api/client';
import type { WorkspaceUser } from '../../workspace-types';

/** Spec section 8: the prefix of an upload failure. */
export const UPLOAD_FAILED = 'Error uploading file.';
/** Spec section 8: the prefix of a chosen file that cannot be read ('Error parsing file: {message}'). */
export const PARSE_FAILED = 'Error parsing file:';

/** Sample datasets are stored in app_data as "samples/<file>" (see src/engine/README.md). */
const SAMPLE_PREFIX = 'samples/';

export const isHttpUrl = (text: string): boolean => {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

/**
 * Where the browser reads a dataset url of app_data from: a sample or one's own upload through
 * GET /api/download/... (bearer token), any other http(s) URL through GET /api/datasets/fetch?url=.
 */
export function readPathOf(url: string, user: WorkspaceUser | null): string | null {
  if (url.startsWith(SAMPLE_PREFIX)) {
    if (!user) return null;
    const file = url.slice(SAMPLE_PREFIX.length);
    return `/api/download/${encodeURIComponent(file)}/${user.id}/${encodeURIComponent(user.email)}`;
  }
  if (url.startsWith('/api/')) return url;
  if (isHttpUrl(url)) {
    const own = new URL(url);
    // An absolute link to this site's own download route is read directly too.
    if (typeof location !== 'undefined' && own.origin === location.origin && own.pathname.startsWith('/api/'))
      return own.pathname + own.search;
    return `/api/datasets/fetch?url=${encodeURIComponent(url)}`;
  }
  return null;
}

/** Reads the CSV at `path` (a readPathOf result) as a Blob; rejects on any non-200 reply. */
export async function fetchCsv(path: string, signal?: AbortSignal): Promise<Blob> {
  const response = await fetch(path, { headers: authHeaders(), ...(signal ? { signal } : {}) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.blob();
}

/** The detail of an upload refusal: the server's `detail`, else the error's own text. */
export function uploadFailureDetail(error: unknown): string {
  if (error instanceof ApiError) {
    const body = typeof error.body === 'string' ? parse(error.body) : error.body;
    if (body && typeof body === 'object') {
      const { detail } = body as { detail?: unknown };
      if (typeof detail === 'string' && detail) return detail;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
