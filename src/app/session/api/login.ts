import { ApiError, messageOf, setAccessToken } from '../../api/client';

export interface LoginReply {
  success: boolean;
  data: { access_token: string; redirect: string; email: string };
}

/** POST /api/login, the spec's form-encoded password grant; stores the access token. */
export async function login(email: string, password: string): Promise<LoginReply> {
  const form = new URLSearchParams({ grant_type: 'password', username: email, password, scope: '' });
  const response = await fetch('/api/login', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const body = (await response.json()) as LoginReply;
  if (!response.ok) throw new ApiError(messageOf(body, response.status), response.status, body);
  setAccessToken(body.data.access_token);
  return body;
}
