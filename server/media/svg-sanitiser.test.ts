// The SVG cleaner keeps drawings and drops whatever would run script or fetch from elsewhere.

import { describe, expect, it } from 'vitest';
import { cssWithoutExternalReferences, sanitiseSvg } from './svg-sanitiser';

const TRACKING_SVG = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40">
  <style>@import url(http://tracker.example/a.css); @import "http://tracker.example/b.css";
    circle { fill: url(#grad); stroke: teal } rect { fill: url('https://tracker.example/p.svg#x') }</style>
  <defs><linearGradient id="grad"><stop offset="0" stop-color="red"/></linearGradient></defs>
  <image href="http://tracker.example/pixel.png" width="1" height="1"/>
  <image xlink:href="https://tracker.example/pixel2.png" width="1" height="1"/>
  <image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/>
  <use href="#dot"/><use xlink:href="http://tracker.example/sprite.svg#icon"/>
  <circle id="dot" cx="20" cy="20" r="18" style="fill: url(http://tracker.example/s.svg#g)"/>
  <rect width="4" height="4" fill="url(https://tracker.example/f.svg#p)" filter="url(#grad)"/>
  <a href="https://example.org/about"><text x="5" y="25">hi</text></a>
</svg>`;

describe('sanitiseSvg', () => {
  it('removes every reference to elsewhere (images, links, uses, CSS imports and urls)', () => {
    const clean = sanitiseSvg(TRACKING_SVG)!;
    expect(clean).not.toBeNull();
    expect(clean).not.toMatch(/tracker\.example|example\.org|@import/);
    // Local references and embedded data stay, and the drawing with them.
    expect(clean).toContain('fill: url(#grad)');
    expect(clean).toContain('data:image/png;base64');
    expect(clean).toContain('filter="url(#grad)"');
    expect(clean).toContain('<circle');
    expect(clean).toContain('<text');
  });

  it('drops CSS that spells an import or a url with escapes', () => {
    expect(cssWithoutExternalReferences('@\\69mport "http://t.example/x.css";')).toBeNull();
    expect(cssWithoutExternalReferences('a { b: u\\72l(http://t.example) }')).toBeNull();
    const clean = sanitiseSvg(
      '<svg xmlns="http://www.w3.org/2000/svg"><style>@\\69mport "http://t.example/x.css";</style><circle r="1" style="fill:u\\72l(http://t.example/y)"/></svg>',
    )!;
    expect(clean).not.toContain('t.example');
    expect(clean).toContain('<circle');
  });
});
