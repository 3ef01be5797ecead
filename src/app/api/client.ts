/** The one place the browser talks to the API: bearer token from local storage, JSON errors. */
export const ACCESS_TOKEN_KEY = 'ACCESS_TOKEN';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const getAccessToken = (): string | null => localStorage.getItem(ACCESS_TOKEN_KEY);
export const setAccessToken = (token: string | null): void =>
  token ? localStorage.setItem(ACCESS_TOKEN_KEY, token) : localStorage.removeItem(ACCESS_TOKEN_KEY);

export function authHeaders(): Record<string, string> {
  const token = getAccessToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** The text to show for an error reply: every API error carries it in `detail` (one envelope). */
export function messageOf(body: unknown, status: number): string {
  if (body && typeof body === 'object') {
    const { detail } = body as { detail?: unknown };
    if (typeof detail === 'string') return detail;
  }
  return `HTTP error! Status: ${status}`;
}

// A proxy's HTML error page is not JSON: keep its status rather than throwing a SyntaxError.
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export async function apiFetch<T>(path: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(authHeaders())) headers.set(name, value);
  if (init.body && typeof init.body === 'string' && !headers.has('content-type')) {
    headers.set('content-type', 'application/json');
  }
  const response = await fetch(`/api${path}`, { ...init, headers });
  const text = await response.text();
  const body: unknown = text ? parseJson(text) : null;
  if (!response.ok) throw new ApiError(messageOf(body, response.status), response.status, body);
  return body as T;
}
