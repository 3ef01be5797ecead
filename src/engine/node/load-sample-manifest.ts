// Reads samples/manifest.json (the shipped sample datasets) for the server's sample catalog and the
// schema checker.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { parseSampleManifest, type SampleManifest } from '../sample-manifest';
import { REPO_ROOT } from './load-schemas';

export const DEFAULT_SAMPLES_DIR = path.join(REPO_ROOT, 'samples');

export function loadSampleManifest(dir: string = DEFAULT_SAMPLES_DIR): SampleManifest {
  return parseSampleManifest(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as unknown);
}
