/** Spec section 9: the inference preview shows the first 30 rows. */
export const PREVIEW_ROWS = 30;

/** One CSV line split on commas, with double-quoted fields ("" inside quotes is one quote). */
function splitLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields.map((f) => f.trim());
}

/**
 * The header and rows of a CSV text for the preview and the feature checkboxes (spec section 5: empty
 * lines are skipped; rows whose column count differs from the header are dropped). `total` counts the
 * kept data rows; `rows` holds at most `limit` of them.
 */
export function parseCsvPreview(
  text: string,
  limit = PREVIEW_ROWS,
): { columns: string[]; rows: string[][]; total: number } {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  if (lines.length === 0) return { columns: [], rows: [], total: 0 };
  const columns = splitLine(lines[0]);
  const rows: string[][] = [];
  let total = 0;
  for (const line of lines.slice(1)) {
    const cells = splitLine(line);
    if (cells.length !== columns.length) continue;
    total++;
    if (rows.length < limit) rows.push(cells);
  }
  return { columns, rows, total };
}
