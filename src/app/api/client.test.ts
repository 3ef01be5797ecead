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

describe('the calls name what failed (spec section 8)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('a refused current-user lookup rejects with "Get current user failed" and the server detail', async () => {
    const { getCurrentUser } = await import('../session/api/current-user');
    vi.stubGlobal('fetch', reply(401, JSON.stringify({ success: false, detail: 'Token expired' })));
    const error = await getCurrentUser().catch((e: unknown) => e);
    expect((error as ApiError).message).toBe('Get current user failed: Token expired');
    expect((error as ApiError).status).toBe(401);
  });

  it('an applications call rejects with its own failure text; an unreachable server keeps it too', async () => {
    const { deleteApplication, listApplications, signedInUserId } = await import('./applications');
    vi.stubGlobal('fetch', reply(404, JSON.stringify({ success: false, detail: 'Application not found' })));
    await expect(deleteApplication(7, 1)).rejects.toThrow('Delete application failed: Application not found');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    await expect(listApplications(1)).rejects.toThrow('Get applications failed');
    expect(() => signedInUserId(null)).toThrow('User is not logged in!');
  });
});
