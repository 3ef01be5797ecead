// The part of jsdom's API the SVG sanitiser uses (the package ships no types and @types/jsdom is
// not a dependency): a window with a DOM that DOMPurify can work on.
declare module 'jsdom' {
  export class JSDOM {
    constructor(html?: string);
    readonly window: Window & typeof globalThis;
  }
}
