// The Predict sub-tab's image checks (spec workspace.md section 5, 'Image upload (brain tumor predict)'):
// type and size from the schema's predict.image rule, then for PNG and JPEG the MRI look of the pixels
// (grayscale, bright centre) by the same rule the server applies.

import { checkFile, type FileRule } from '../../../../engine';

/** The pixels of a decoded image, as canvas ImageData holds them (RGBA, row by row). */
export interface Pixels {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

/** Decodes an image file to its pixels (the browser's own decoder; tests pass a stand-in). */
export type ReadPixels = (file: Blob) => Promise<Pixels>;
/** Whether pixels look like an MRI slice (the project's one rule, src/engine). */
export type LooksLikeMri = (pixels: Pixels) => boolean;

export type ImageVerdict = { ok: true; message: string } | { ok: false; message: string };

/** Files whose pixels the browser can read; DICOM and NIfTI are checked by the server only. */
const DECODABLE = /\.(png|jpe?g)$/i;

/** Spec section 8: what the browser says when an image cannot be read at all. */
export const IMAGE_PROCESSING_FAILED = 'An error occurred while processing the image.';

export async function validateImageFile(
  rule: FileRule,
  file: File,
  readPixels: ReadPixels,
  looksLikeMri: LooksLikeMri,
): Promise<ImageVerdict> {
  const messages = rule.messages ?? {};
  const check = checkFile(rule, { name: file.name, size: file.size });
  if (!check.ok) return { ok: false, message: check.message ?? IMAGE_PROCESSING_FAILED };
  const valid = messages.valid ?? '';
  if (!DECODABLE.test(file.name)) return { ok: true, message: valid };
  let looksRight: boolean;
  try {
    looksRight = looksLikeMri(await readPixels(file));
  } catch {
    // Not decodable as the image its name says, or pixels the rule cannot read.
    return { ok: false, message: IMAGE_PROCESSING_FAILED };
  }
  return looksRight ? { ok: true, message: valid } : { ok: false, message: messages.notMri ?? '' };
}

/** The browser's decoder: the image drawn on a canvas, its ImageData read back. */
export const readPixelsWithCanvas: ReadPixels = async (file) => {
  const bitmap = await createImageBitmap(file);
  try {
    const canvas = document.createElement('canvas');
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2d canvas');
    context.drawImage(bitmap, 0, 0);
    return context.getImageData(0, 0, bitmap.width, bitmap.height);
  } finally {
    bitmap.close();
  }
};
