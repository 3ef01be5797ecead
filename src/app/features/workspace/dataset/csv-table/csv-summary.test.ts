import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { PREVIEW_ROWS, summarizeCsv } from './csv-summary';

interface RowRuleCase {
  name: string;
  csv: string;
  columns: string[];
  rows: number;
  dropped: number;
}
// Read, not imported: the fixture is shared with the server and worker tests (nothing imports tests/).
const fixture = JSON.parse(
  readFileSync(new URL('../../../../../../tests/contracts/csv-row-rule.json', import.meta.url), 'utf8'),
) as { cases: RowRuleCase[] };

describe('summarizeCsv: the CSV row rule (tests/contracts/csv-row-rule.json)', () => {
  it.each(fixture.cases)('$name', async ({ csv, columns, rows, dropped }) => {
    const parsed = await summarizeCsv(csv);
    expect(parsed.columns).toEqual(columns);
    expect(parsed.rowCount).toBe(rows);
    expect(parsed.droppedRows).toBe(dropped);
  });

  it('reads a Blob the same way as text', async () => {
    const parsed = await summarizeCsv(new Blob(['a,b\n1,2\n3\n4,5\n']));
    expect(parsed).toMatchObject({ columns: ['a', 'b'], rowCount: 2, droppedRows: 1 });
  });

  it('keeps the first 30 kept rows keyed by the header and counts them all', async () => {
    const lines = ['x,y', ...Array.from({ length: 45 }, (_, i) => `${i},${i * 2}`)];
    const parsed = await summarizeCsv(lines.join('\n'));
    expect(parsed.rowCount).toBe(45);
    expect(parsed.preview).toHaveLength(PREVIEW_ROWS);
    expect(parsed.preview[0]).toEqual({ x: '0', y: '0' });
    expect(parsed.preview[29]).toEqual({ x: '29', y: '58' });
  });
});
