// The MRI look of an image's pixels for the Predict sub-tab: the engine's one rule (src/engine/mri-image-check.ts)
// with the problem's numbers (predict.mriCheck), applied to canvas ImageData (RGBA).
import type { Problem } from '../../../../engine';
import { checkMriPixels } from '../../../../engine/mri-image-check';
import type { LooksLikeMri } from './image-validation';

export function mriLookOf(problem: Problem): LooksLikeMri {
  const rule = problem.predict?.mriCheck;
  // Without a rule in the problem file there is nothing to check in the browser; the server still checks.
  if (!rule) return () => true;
  // Named one by one: ImageData's width, height and data are prototype getters, which a spread drops.
  return ({ width, height, data }) => checkMriPixels({ width, height, data, channels: 4 }, rule).ok;
}
