import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { AVATAR_RULE } from '../../src/engine';
import { tooManyText, type RateLimiter, type RateRule } from '../platform/rate-limiter';
import { errorBody, errorReplies, PUBLIC } from '../platform/reply-schemas';
import { IMAGE_KINDS, sniffImage, type ImageKind } from './image-kinds';
import { isMalformedMultipart, MALFORMED_MULTIPART } from '../platform/multipart-errors';
import type { ImageStore } from './image-store';
import { sanitiseSvg } from './svg-sanitiser';

/** The spec's limit and messages for an avatar (platform-shell.md section 5, Profile: Image), from the
 * engine's avatar rule, which the profile form's pre-check uses too. */
export const MAX_IMAGE_BYTES = AVATAR_RULE.maxBytes;
export const IMAGE_TYPE_MESSAGE = AVATAR_RULE.messages.type;
export const IMAGE_SIZE_MESSAGE = AVATAR_RULE.messages.size;
const MAX_DESCRIPTION = 500;

/** Uploads one account may make in an hour (each keeps up to 2 MB on disk). */
export const uploadRules = (userId: number): RateRule[] => [
  { key: `upload:user:${userId}`, max: 60, windowMs: 60 * 60 * 1000 },
];

/**
 * Served images: nothing in them runs. nosniff keeps the declared type; the sandboxing CSP covers an
 * SVG opened on its own (an <img> never runs an SVG's script, but a top-level view would).
 */
const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

const uploadReply = {
  type: 'object',
  required: ['success', 'image_url'],
  properties: {
    success: { type: 'boolean' },
    image_url: { type: 'string', description: 'Where the image is served: /api/images/<name>' },
  },
} as const;

const binary = { type: 'string', format: 'binary' } as const;

class UploadRefusal extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** The file part and the optional description of an upload, with the size limit applied. */
async function readUpload(
  parts: AsyncIterableIterator<import('@fastify/multipart').Multipart>,
): Promise<{ bytes: Buffer; description: string | null }> {
  let bytes: Buffer | null = null;
  let description: string | null = null;
  for await (const part of parts) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file' || bytes !== null) {
        part.file.resume(); // drained, so the rest of the body can be read
        throw new UploadRefusal(400, 'Send one image, in the field "file"');
      }
      bytes = await part.toBuffer();
    } else if (part.fieldname === 'description' && typeof part.value === 'string') {
      if (part.value.length > MAX_DESCRIPTION)
        throw new UploadRefusal(400, `/description must not exceed ${MAX_DESCRIPTION} characters`);
      description = part.value || null;
    }
  }
  if (!bytes || bytes.length === 0) throw new UploadRefusal(400, '/file is required');
  return { bytes, description };
}

/** Checks the bytes are an allowed image by content; an SVG comes back sanitised. */
function acceptImage(bytes: Buffer): { kind: ImageKind; bytes: Uint8Array } {
  const kind = sniffImage(bytes);
  if (!kind) throw new UploadRefusal(400, IMAGE_TYPE_MESSAGE);
  if (kind !== 'svg') return { kind, bytes };
  const clean = sanitiseSvg(bytes.toString('utf8'));
  if (!clean) throw new UploadRefusal(400, IMAGE_TYPE_MESSAGE);
  return { kind, bytes: Buffer.from(clean, 'utf8') };
}

/** POST /upload-image (a signed-in user's avatar) and GET /images/{name} (serving it). */
export const mediaRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { images: ImageStore; limiter: RateLimiter };
}> = async (app, { images, limiter }) => {
  // Multipart bodies only in this scope; the file limit is one byte over the allowed size so that
  // "too large" is told apart from "exactly 2 MB".
  await app.register(multipart, {
    limits: { fileSize: MAX_IMAGE_BYTES, files: 1, fields: 4, fieldSize: 4 * MAX_DESCRIPTION, parts: 5 },
  });

  app.post(
    '/upload-image',
    {
      schema: {
        tags: ['media'],
        summary:
          'Upload an image (avatar): multipart fields `file` (PNG, JPEG, GIF or SVG, at most 2 MB) and `description`',
        consumes: ['multipart/form-data'],
        response: { 200: uploadReply, ...errorReplies(400, 401, 413, 415, 429) },
      },
      onRequest: app.requireUser,
    },
    async (request, reply) => {
      if (!request.isMultipart()) {
        return reply.code(415).send(errorBody('Send the image as multipart/form-data'));
      }
      const wait = await limiter.attempt(uploadRules(request.currentUser!.id));
      if (wait > 0) {
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send(errorBody(tooManyText('uploads', wait)));
      }
      try {
        const upload = await readUpload(request.parts());
        const image = acceptImage(upload.bytes);
        const name = await images.save({
          userId: request.currentUser!.id,
          kind: image.kind,
          bytes: image.bytes,
          description: upload.description,
        });
        return reply.code(200).send({ success: true, image_url: `/api/images/${name}` });
      } catch (error) {
        if (error instanceof UploadRefusal) {
          const field =
            error.message === IMAGE_TYPE_MESSAGE ? [{ field: '/file', message: error.message }] : undefined;
          return reply.code(error.status).send(errorBody(error.message, field));
        }
        if (error instanceof app.multipartErrors.RequestFileTooLargeError) {
          return reply
            .code(413)
            .send(errorBody(IMAGE_SIZE_MESSAGE, [{ field: '/file', message: IMAGE_SIZE_MESSAGE }]));
        }
        if (
          error instanceof app.multipartErrors.FilesLimitError ||
          error instanceof app.multipartErrors.PartsLimitError ||
          error instanceof app.multipartErrors.FieldsLimitError ||
          error instanceof app.multipartErrors.InvalidMultipartContentTypeError
        ) {
          return reply.code(400).send(errorBody('Send one image, in the field "file"'));
        }
        if (isMalformedMultipart(error)) return reply.code(400).send(errorBody(MALFORMED_MULTIPART));
        throw error;
      }
    },
  );

  app.get(
    '/images/:name',
    {
      schema: {
        tags: ['media'],
        summary: 'An uploaded image',
        security: PUBLIC,
        params: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', maxLength: 40 } },
        },
        response: {
          200: {
            description: 'The image, with the content type it was recognised as',
            content: Object.fromEntries(
              Object.values(IMAGE_KINDS).map((kind) => [kind.contentType, { schema: binary }]),
            ),
          },
          ...errorReplies(404),
        },
      },
    },
    async (request, reply) => {
      const image = await images.read(request.params.name);
      if (!image) return reply.code(404).send(errorBody('Not found'));
      return (
        reply
          .code(200)
          .header('content-type', image.contentType)
          .header('content-security-policy', IMAGE_CSP)
          // Names are random and an image never changes under its name.
          .header('cache-control', 'public, max-age=31536000, immutable')
          // Fastify sends a Buffer as it is, unserialised; the type provider reads "binary" as string.
          .send(image.bytes as unknown as string)
      );
    },
  );
};
