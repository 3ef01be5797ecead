// Does a PNG or JPEG look like an MRI slice? The spec's grayscale and centre-brightness check, on
// pixels (the browser's canvas ImageData, before an upload). The rule's numbers are data
// (predict.mriCheck in schemas/problems/brain-tumor.json); the worker applies the same rule where it
// decides (worker/qmlstudio_worker/problems/brain_tumor/image_check.py, whose docstring defines the measures), and
// tests/contracts/mri-image-check.json holds the cases both must agree on.

export interface MriCheckRule {
  /** Largest mean over pixels of max(R, G, B) - min(R, G, B), 0..255. */
  maxChannelSpread: number;
  /** The centre box: the middle fraction of the height and of the width. */
  centreFraction: number;
  /** The border frame's width as a fraction of the shorter side (at least one pixel). */
  borderFraction: number;
  /** Least mean brightness of the centre box, 0..255. */
  minCentreMean: number;
  /** The centre's mean brightness must be at least this many times the border's. */
  minCentreToBorderRatio: number;
}

/** Pixels row by row, `channels` values each: 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA (ImageData). */
export interface PixelImage {
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
  data: ArrayLike<number>;
}

export type MriCheckReason = 'colour' | 'dark' | 'flat';

export interface MriCheck {
  ok: boolean;
  reason?: MriCheckReason;
  channelSpread: number;
  centreMean: number;
  borderMean: number;
}

export function checkMriPixels(image: PixelImage, rule: MriCheckRule): MriCheck {
  const { width, height, channels, data } = image;
  if (width < 1 || height < 1 || data.length !== width * height * channels) {
    throw new Error(`pixels must be ${width} x ${height} x ${channels} values, got ${data.length}`);
  }
  const colours = channels >= 3 ? 3 : 1;
  const y0 = Math.floor((height * (1 - rule.centreFraction)) / 2);
  const x0 = Math.floor((width * (1 - rule.centreFraction)) / 2);
  const frame = Math.max(1, Math.floor(Math.min(height, width) * rule.borderFraction));

  let spreadSum = 0;
  let centreSum = 0;
  let centreCount = 0;
  let borderSum = 0;
  let borderCount = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels;
      let low = Infinity;
      let high = -Infinity;
      let sum = 0;
      for (let c = 0; c < colours; c++) {
        const value = data[at + c]!;
        low = Math.min(low, value);
        high = Math.max(high, value);
        sum += value;
      }
      spreadSum += high - low;
      const brightness = sum / colours;
      if (y >= y0 && y < height - y0 && x >= x0 && x < width - x0) {
        centreSum += brightness;
        centreCount++;
      }
      if (y < frame || y >= height - frame || x < frame || x >= width - frame) {
        borderSum += brightness;
        borderCount++;
      }
    }
  }
  const channelSpread = spreadSum / (width * height);
  const centreMean = centreCount ? centreSum / centreCount : 0;
  const borderMean = borderCount ? borderSum / borderCount : 0;

  let reason: MriCheckReason | undefined;
  if (channelSpread > rule.maxChannelSpread) reason = 'colour';
  else if (centreMean < rule.minCentreMean) reason = 'dark';
  else if (centreMean < rule.minCentreToBorderRatio * borderMean) reason = 'flat';
  return { ok: reason === undefined, ...(reason ? { reason } : {}), channelSpread, centreMean, borderMean };
}
