import { ApiError, authHeaders, messageOf } from '../../../api/client';

/**
 * POST /api/upload-image (multipart: file, description?) with upload progress (0..1), which fetch
 * cannot report; resolves to the stored image's URL.
 */
export function uploadImage(
  file: File,
  onProgress: (fraction: number) => void,
  description?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('file', file);
    if (description) form.append('description', description);
    const request = new XMLHttpRequest();
    request.open('POST', '/api/upload-image');
    for (const [name, value] of Object.entries(authHeaders())) request.setRequestHeader(name, value);
    request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    request.onerror = () => reject(new Error('Failed to upload image'));
    request.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        // not JSON: the status decides below
      }
      const url = (body as { image_url?: unknown } | null)?.image_url;
      if (request.status >= 200 && request.status < 300 && typeof url === 'string') {
        onProgress(1);
        resolve(url);
      } else reject(new ApiError(messageOf(body, request.status), request.status, body));
    };
    request.send(form);
  });
}
