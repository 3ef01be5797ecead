// How a table shows a number read as text from a file: a long decimal (float32 prices come as
// 142.5699920654297) is cut to what a reader compares, the text itself is kept for everything else.

/** A plain decimal with more fraction digits than a preview needs. */
const LONG_DECIMAL = /^-?\d+\.\d{5,}$/;

/**
 * A cell's text as a preview shows it: a long decimal rounded to 4 decimals (4 significant digits
 * below 1, so 0.0000123456 stays 0.00001235), any other text unchanged (ids, dates, short numbers).
 */
export function previewCell(text: string): string {
  if (!LONG_DECIMAL.test(text)) return text;
  const value = Number(text);
  const options: Intl.NumberFormatOptions =
    Math.abs(value) >= 1 ? { maximumFractionDigits: 4 } : { maximumSignificantDigits: 4 };
  return value.toLocaleString('en-US', { ...options, useGrouping: false });
}
