// An SVG avatar carrying script, opened directly in Chromium (the way a crafted link would open it):
// nothing in it runs. The upload is sanitised and the image is served with nosniff and a CSP that
// forbids script, so either defence alone would already stop it; this checks what the browser does.

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { adminToken, launchBrowser, sharedProduct, type RunningProduct } from './harness';

const HOSTILE_SVG = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64"
     onload="window.__ran = 'onload'; alert('onload')">
  <script>window.__ran = 'script'; alert('script')</script>
  <a xlink:href="javascript:alert('link')"><rect width="64" height="64" fill="#2a5ac8"/></a>
  <foreignObject width="64" height="64">
    <iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:alert('iframe')"></iframe>
  </foreignObject>
  <circle cx="32" cy="32" r="20" fill="#fac828"/>
</svg>`;

describe('a hostile SVG avatar in a real browser', () => {
  let product: RunningProduct;
  let browser: Browser;
  beforeAll(async () => {
    [product, browser] = await Promise.all([sharedProduct(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });

  it('is stored without its script and runs nothing when opened', async () => {
    const form = new FormData();
    form.append('file', new Blob([HOSTILE_SVG], { type: 'image/svg+xml' }), 'avatar.svg');
    const upload = await fetch(`${product.url}/api/upload-image`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await adminToken(product)}` },
      body: form,
    });
    expect(upload.status).toBe(200);
    const { image_url } = (await upload.json()) as { image_url: string };

    const served = await fetch(`${product.url}${image_url}`);
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-security-policy')).toMatch(/script-src 'none'|default-src 'none'/);
    const stored = await served.text();
    expect(stored).toContain('<circle');
    expect(stored).not.toMatch(/<script|onload=|javascript:|<iframe/i);

    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${product.url}${image_url}`);
    await page.locator('circle').waitFor({ state: 'attached' });
    await page.waitForTimeout(500);
    expect(dialogs).toEqual([]);
    expect(await page.evaluate(() => (window as { __ran?: string }).__ran ?? null)).toBeNull();
    await page.close();
  });
});
