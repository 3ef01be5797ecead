import { deflateSync } from 'node:zlib';
import { JSDOM } from 'jsdom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MALFORMED_MULTIPART } from '../platform/multipart-errors';
import { bearer, MODES, startStack, type TestStack } from '../test-support/harness';
import { IMAGE_SIZE_MESSAGE, IMAGE_TYPE_MESSAGE, MAX_IMAGE_BYTES, uploadRules } from './media-routes';

/** A multipart/form-data body as a browser's FormData would send it. */
function multipart(parts: { name: string; value: Buffer | string; filename?: string; type?: string }[]): {
  payload: Buffer;
  headers: Record<string, string>;
} {
  const boundary = '----qml-test-boundary-7MA4YWxkTrZu0gW';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** A real 1x1 PNG (signature, IHDR, IDAT, IEND), padded to `size` bytes with a private chunk. */
function png(size = 0): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, Buffer.from(type), data, Buffer.alloc(4)]); // CRC not checked here
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
  const parts = [
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0, 255]))),
  ];
  const end = chunk('IEND', Buffer.alloc(0));
  const used = parts.reduce((sum, p) => sum + p.length, 0) + end.length;
  if (size > used) parts.push(chunk('pADd', Buffer.alloc(size - used - 12)));
  return Buffer.concat([...parts, end]);
}

const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
  Buffer.alloc(60),
  Buffer.from([0xff, 0xd9]),
]);
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const HOSTILE_SVG = `<?xml version="1.0"?>
<!-- an avatar -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40" onload="alert(1)">
  <script>alert(document.cookie)</script>
  <circle cx="20" cy="20" r="18" fill="teal" onclick="alert(2)"/>
  <a xlink:href="javascript:alert(3)"><text x="5" y="25">hi &amp; bye</text></a>
  <foreignObject width="40" height="40"><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="javascript:alert(4)"></iframe></body></foreignObject>
  <animate attributeName="href" values="javascript:alert(5)"/>
</svg>`;

describe.each(MODES.filter((m) => m.queue === 'in-process'))('image upload on $database', (mode) => {
  let stack: TestStack;
  let token: string;
  beforeAll(async () => {
    if (!mode.available) return;
    stack = await startStack(mode);
    token = await stack.userToken('painter@example.com');
  });
  afterAll(async () => stack?.close());

  const upload = (
    file: Buffer | string,
    filename = 'avatar.png',
    extra: { name: string; value: string }[] = [],
    auth: Record<string, string> = bearer(token),
  ) => {
    const body = multipart([{ name: 'file', value: file, filename, type: 'image/png' }, ...extra]);
    return stack.app.inject({
      method: 'POST',
      url: '/api/upload-image',
      payload: body.payload,
      headers: { ...auth, ...body.headers },
    });
  };

  it.skipIf(!mode.available)(
    'judges a file by its content, not its name, and serves it back inert',
    async () => {
      const bytes = png();
      const reply = await upload(bytes, 'holiday.txt', [{ name: 'description', value: 'my face' }]);
      expect(reply.statusCode).toBe(200);
      const { success, image_url } = reply.json() as { success: boolean; image_url: string };
      expect(success).toBe(true);
      expect(image_url).toMatch(/^\/api\/images\/[a-f0-9]{32}\.png$/);

      const served = await stack.app.inject({ url: image_url });
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/png');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect(served.headers['content-security-policy']).toContain('sandbox');
      expect(served.rawPayload.equals(bytes)).toBe(true);

      const { rows } = await stack.services.db.query<{
        email: string;
        description: string;
        byte_size: number;
      }>(
        `select u.email, i.description, i.byte_size from images i join users u on u.id = i.user_id
       where i.name = $1`,
        [image_url.split('/').pop()],
      );
      expect(rows).toEqual([
        { email: 'painter@example.com', description: 'my face', byte_size: bytes.length },
      ]);
    },
  );

  it.skipIf(!mode.available)('takes JPEG and GIF under any name, with their own type', async () => {
    for (const [bytes, type, extension] of [
      [JPEG, 'image/jpeg', 'jpg'],
      [GIF, 'image/gif', 'gif'],
    ] as const) {
      const reply = await upload(bytes, 'picture.png');
      expect(reply.statusCode, type).toBe(200);
      const url = (reply.json() as { image_url: string }).image_url;
      expect(url.endsWith(`.${extension}`)).toBe(true);
      expect((await stack.app.inject({ url })).headers['content-type']).toBe(type);
    }
  });

  it.skipIf(!mode.available)(
    "refuses what is not an image with the spec's message, whatever its name",
    async () => {
      for (const content of [
        '<html><script>alert(1)</script></html>',
        'GIF88a not quite',
        Buffer.from([0x89, 0x50, 0x4e, 0x47]), // the start of a PNG signature only
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaa">]><svg>&a;&a;</svg>',
        '<p>text</p><svg></svg>', // not an SVG file: its first element is not <svg>
      ]) {
        const reply = await upload(content, 'avatar.png');
        expect(reply.statusCode, String(content)).toBe(400);
        expect(reply.json()).toEqual({
          success: false,
          detail: IMAGE_TYPE_MESSAGE,
          errors: [{ field: '/file', message: IMAGE_TYPE_MESSAGE }],
        });
      }
    },
  );

  it.skipIf(!mode.available)(
    'keeps an SVG without anything that could run script, as well-formed XML',
    async () => {
      const reply = await upload(HOSTILE_SVG, 'avatar.svg');
      expect(reply.statusCode).toBe(200);
      const url = (reply.json() as { image_url: string }).image_url;
      expect(url).toMatch(/\.svg$/);
      const served = await stack.app.inject({ url });
      expect(served.headers['content-type']).toBe('image/svg+xml');
      expect(served.headers['content-security-policy']).toBe(
        "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      );
      const text = served.body;
      expect(text).toContain('<circle');
      expect(text).toContain('hi &amp; bye');
      for (const banned of [
        '<script',
        'onload',
        'onclick',
        'javascript:',
        'foreignObject',
        'iframe',
        '<animate',
      ]) {
        expect(text, banned).not.toContain(banned);
      }
      // A standalone SVG must parse as XML.
      const { window } = new JSDOM('');
      const parsed = new window.DOMParser().parseFromString(text, 'image/svg+xml');
      expect(parsed.getElementsByTagName('parsererror')).toHaveLength(0);
      expect(parsed.documentElement.localName).toBe('svg');
    },
  );

  it.skipIf(!mode.available)('takes exactly 2 MB and refuses one byte more', async () => {
    expect((await upload(png(MAX_IMAGE_BYTES))).statusCode).toBe(200);
    const reply = await upload(png(MAX_IMAGE_BYTES + 1));
    expect(reply.statusCode).toBe(413);
    expect(reply.json()).toMatchObject({ success: false, detail: IMAGE_SIZE_MESSAGE });
  });

  it.skipIf(!mode.available)('wants a signed-in user, a multipart body and a file', async () => {
    expect((await upload(png(), 'a.png', [], {})).statusCode).toBe(401);
    expect((await upload(png(), 'a.png', [], bearer('not-a-token'))).statusCode).toBe(401);
    const json = await stack.app.inject({
      method: 'POST',
      url: '/api/upload-image',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: { file: 'x' },
    });
    expect(json.statusCode).toBe(415);
    const body = multipart([{ name: 'description', value: 'no file' }]);
    const none = await stack.app.inject({
      method: 'POST',
      url: '/api/upload-image',
      payload: body.payload,
      headers: { ...bearer(token), ...body.headers },
    });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ detail: '/file is required' });
    const file = multipart([{ name: 'file', value: png(), filename: 'a.png', type: 'image/png' }]);
    const mismatched = await stack.app.inject({
      method: 'POST',
      url: '/api/upload-image',
      payload: file.payload,
      headers: { ...bearer(token), 'content-type': 'multipart/form-data; boundary=----not-the-one-used' },
    });
    expect(mismatched.statusCode).toBe(400);
    expect(mismatched.json()).toMatchObject({ detail: MALFORMED_MULTIPART });
  });

  it.skipIf(!mode.available)('limits uploads per account, with Retry-After', async () => {
    const busy = await stack.userToken('busy@example.com');
    const me = await stack.app.inject({ url: '/api/users/me', headers: bearer(busy) });
    const rules = uploadRules((me.json() as { data: { id: number } }).data.id);
    for (let i = 0; i < rules[0]!.max; i++) await stack.services.rateLimiter.record(rules);
    const reply = await upload(png(), 'a.png', [], bearer(busy));
    expect(reply.statusCode).toBe(429);
    expect(Number(reply.headers['retry-after'])).toBeGreaterThan(0);
    expect(reply.json()).toMatchObject({
      success: false,
      detail: expect.stringMatching(/^Too many uploads/),
    });
    // Another account is not held back.
    expect((await upload(png())).statusCode).toBe(200);
  });

  it.skipIf(!mode.available)('serves only stored images by their exact name', async () => {
    for (const name of ['0123456789abcdef0123456789abcdef.png', '..%2F..%2Fjwt-secret', 'x.svg']) {
      const reply = await stack.app.inject({ url: `/api/images/${name}` });
      expect(reply.statusCode, name).toBe(404);
      expect(reply.json()).toMatchObject({ success: false });
    }
  });
});
