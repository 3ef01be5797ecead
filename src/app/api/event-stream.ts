import { ApiError, authHeaders, messageOf } from './client';

/**
 * Follows a server-sent event stream under /api with the bearer token in a header (EventSource cannot
 * send one, and a token in the URL would end up in logs). Each `data:` block is parsed as JSON and
 * handed to `onEvent`. Resolves when the stream ends; rejects with an ApiError when it is refused.
 */
export async function followEventStream<T>(
  path: string,
  onEvent: (event: T) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(`/api${path}`, { headers: authHeaders(), signal });
  if (!response.ok || !response.body) {
    const body: unknown = await response.json().catch(() => null);
    throw new ApiError(messageOf(body, response.status), response.status, body);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (data) onEvent(JSON.parse(data) as T);
    }
  }
}
