import { describe, expect, it } from 'vitest';
import { previewCell } from './numbers';

describe('previewCell', () => {
  it('rounds a long decimal to 4 decimals, 4 significant digits below 1', () => {
    expect(previewCell('142.5699920654297')).toBe('142.57');
    expect(previewCell('-3.141592653589793')).toBe('-3.1416');
    expect(previewCell('0.000012345678')).toBe('0.00001235');
    expect(previewCell('12345678.123456789')).toBe('12345678.1235');
  });

  it('leaves every other text as it is', () => {
    for (const text of ['2024-01-02', '142.57', '10', 'AAPL', '1e-7', '', '0.1234', '1,234.56789'])
      expect(previewCell(text)).toBe(text);
  });
});
