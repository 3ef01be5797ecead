import { authHeaders, messageOf } from '../../api/client';

/**
 * GET /api/download/{file}/{user}/{email}: a shipped sample as CSV for the signed-in user, saved
 * under its own name. (A plain link would not carry the bearer token.)
 */
export async function downloadSample(file: string, user: { id: number; email: string }): Promise<void> {
  const response = await fetch(
    `/api/download/${encodeURIComponent(file)}/${user.id}/${encodeURIComponent(user.email)}`,
    { headers: authHeaders() },
  );
  if (!response.ok) {
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the status says enough
    }
    throw new Error(`Download failed: ${messageOf(body, response.status)}`);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = file;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
