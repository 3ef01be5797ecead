// The page's HTML asks for the validators module beside the app's own scripts (index.html's
// modulepreload), so the app, which draws nothing before it has them, does not wait one more round trip
// for them. The preload helps only when it names the exact URL the app imports (else the module is
// fetched twice); npm run bench:assets measures the first draw over a slow link.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

import { SERVED_VALIDATORS_URL } from '../served-validators';

it('index.html preloads the validators module at the URL the app imports', () => {
  const html = readFileSync(path.resolve(import.meta.dirname, '../../../index.html'), 'utf8');
  const preloads = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((match) => match[1]);
  expect(preloads).toContain(SERVED_VALIDATORS_URL);
});
