import { createRequire } from 'node:module';

import createDOMPurify, { type DOMPurify } from 'dompurify';
import type * as Jsdom from 'jsdom';

// One window for the process: building a jsdom window costs far more than sanitising an avatar. jsdom
// itself is loaded at the first SVG, not at the server's start (about 0.3 CPU-s and tens of MB that a
// server without SVG uploads never needs).
let purifier: { purify: DOMPurify; serialize(node: Node): string } | null = null;

function getPurifier() {
  if (!purifier) {
    const { JSDOM } = createRequire(import.meta.url)('jsdom') as typeof Jsdom;
    const { window } = new JSDOM('');
    const purify = createDOMPurify(window);
    const serializer = new window.XMLSerializer();
    purifier = { purify, serialize: (node) => serializer.serializeToString(node) };
  }
  return purifier;
}

/** A reference that fetches nothing: a fragment of this SVG (#id) or embedded data. */
const isLocalReference = (value: string) => /^\s*(#|data:)/i.test(value);

const CSS_URL = /url\(\s*(['"]?)(.*?)\1\s*\)/gi;
const CSS_IMPORT = /@import\b[^;]*;?/gi;

/**
 * CSS without anything that fetches: @import rules removed and url(...) to anything but a fragment or
 * data replaced by `none`. CSS escapes can spell either ('@\69mport', 'u\72l('), so CSS holding a
 * backslash is dropped whole (null), as are image-set() and other fetching functions written oddly.
 */
export function cssWithoutExternalReferences(css: string): string | null {
  if (css.includes('\\')) return null;
  return css
    .replace(CSS_IMPORT, '')
    .replace(CSS_URL, (whole, _quote: string, target: string) => (isLocalReference(target) ? whole : 'none'));
}

/** Removes what would make a viewer fetch from elsewhere: links and image sources, CSS imports and urls. */
function dropExternalReferences(root: Element): void {
  for (const element of [root, ...Array.from(root.querySelectorAll('*'))]) {
    if (element.localName === 'style') {
      const css = cssWithoutExternalReferences(element.textContent ?? '');
      if (css === null) element.remove();
      else element.textContent = css;
      continue;
    }
    for (const attribute of Array.from(element.attributes)) {
      const name = attribute.localName;
      if ((name === 'href' || name === 'src') && !isLocalReference(attribute.value)) {
        element.removeAttributeNode(attribute);
      } else if (/url\(|@import|\\/i.test(attribute.value)) {
        const css = cssWithoutExternalReferences(attribute.value);
        if (css === null) element.removeAttributeNode(attribute);
        else attribute.value = css;
      }
    }
  }
}

/**
 * The SVG without anything that can run or fetch script, or fetch anything at all: DOMPurify's SVG
 * profile keeps shapes, styles and filters and drops <script>, event-handler attributes, javascript:
 * links and <foreignObject>; then every link or image source that is not a fragment (#id) or data,
 * every CSS @import and every CSS url() to elsewhere is removed (an avatar that loads
 * http://tracker/... tells a third party who looked at it). The result is serialised as XML (a
 * standalone .svg must be well-formed). Null when nothing of an <svg> element is left.
 */
export function sanitiseSvg(source: string): string | null {
  const { purify, serialize } = getPurifier();
  const fragment = purify.sanitize(source, {
    USE_PROFILES: { svg: true, svgFilters: true },
    FORBID_TAGS: ['foreignObject'],
    RETURN_DOM_FRAGMENT: true,
  });
  const svg = fragment.firstElementChild;
  if (!svg || svg.localName !== 'svg' || fragment.childElementCount !== 1) return null;
  dropExternalReferences(svg);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(svg)}\n`;
}
