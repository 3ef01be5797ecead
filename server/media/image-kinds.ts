/** The image kinds an upload may be, each recognised by its content (never by the file's name). */
export const IMAGE_KINDS = {
  png: { contentType: 'image/png', extension: 'png' },
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  gif: { contentType: 'image/gif', extension: 'gif' },
  svg: { contentType: 'image/svg+xml', extension: 'svg' },
} as const;

export type ImageKind = keyof typeof IMAGE_KINDS;

/** The extension a stored image's name ends with, back to its content type (serving). */
export const CONTENT_TYPE_BY_EXTENSION: Record<string, string> = Object.fromEntries(
  Object.values(IMAGE_KINDS).map((kind) => [kind.extension, kind.contentType]),
);

const startsWith = (bytes: Uint8Array, signature: readonly number[]) =>
  bytes.length >= signature.length && signature.every((byte, i) => bytes[i] === byte);

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;
const JPEG = [0xff, 0xd8, 0xff] as const;
const GIF87A = [...'GIF87a'].map((c) => c.charCodeAt(0));
const GIF89A = [...'GIF89a'].map((c) => c.charCodeAt(0));

// Before the <svg> element an SVG file may carry a byte-order mark, an XML declaration, comments,
// processing instructions and white space. A DOCTYPE is refused: SVG needs none, and its entity
// declarations are how XML parsers are made to expand a few bytes into gigabytes.
const SVG_PROLOGUE = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:(?:<!--[\s\S]*?-->|<\?[\s\S]*?\?>)\s*)*<svg[\s>]/i;

/** What the bytes are, judged by their signature (SVG: well-formed UTF-8 whose first element is <svg>). */
export function sniffImage(bytes: Uint8Array): ImageKind | null {
  if (startsWith(bytes, PNG)) return 'png';
  if (startsWith(bytes, JPEG)) return 'jpeg';
  if (startsWith(bytes, GIF87A) || startsWith(bytes, GIF89A)) return 'gif';
  const text = decodeUtf8(bytes);
  if (text !== null && SVG_PROLOGUE.test(text) && !/<!DOCTYPE|<!ENTITY/i.test(text)) return 'svg';
  return null;
}

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
