import createDOMPurify, { type DOMPurify } from 'dompurify';
import { JSDOM } from 'jsdom';

// One window for the process: building a jsdom window costs far more than sanitising an avatar.
let purifier: { purify: DOMPurify; serialize(node: Node): string } | null = null;

function getPurifier() {
  if (!purifier) {
    const { window } = new JSDOM('');
    const purify = createDOMPurify(window);
    const serializer = new window.XMLSerializer();
    purifier = { purify, serialize: (node) => serializer.serializeToString(node) };
  }
  return purifier;
}

/**
 * The SVG without anything that can run or fetch script: DOMPurify's SVG profile keeps shapes,
 * styles and filters and drops <script>, event-handler attributes, javascript: links and
 * <foreignObject>. The result is serialised as XML (a standalone .svg must be well-formed).
 * Null when nothing of an <svg> element is left.
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
  return `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(svg)}\n`;
}
