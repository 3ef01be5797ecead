// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, apiFetch } from './client';

const reply = (status: number, body: string) =>
  vi.fn(async () => new Response(body, { status, headers: { 'content-type': 'application/json' } }));

describe('apiFetch', () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows the error envelope's detail, the one text field every API error carries", async () => {
    vi.stubGlobal(
      'fetch',
      reply(
        400,
        JSON.stringify({
          success: false,
          detail: '/shots must be >= 1',
          errors: [{ field: '/shots', message: '/shots must be >= 1' }],
        }),
      ),
    );
    const error = await apiFetch('/diagnostics/self-test', { method: 'POST', body: '{}' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('/shots must be >= 1');
    expect((error as ApiError).status).toBe(400);
  });

  it('falls back to the status for a reply without detail, JSON or not', async () => {
    vi.stubGlobal('fetch', reply(502, '<html>Bad gateway</html>'));
    await expect(apiFetch('/jobs')).rejects.toThrow('HTTP error! Status: 502');
    vi.stubGlobal('fetch', reply(500, JSON.stringify({ message: 'not the field the client reads' })));
    await expect(apiFetch('/jobs')).rejects.toThrow('HTTP error! Status: 500');
  });
});
