import { describe, expect, it } from 'vitest';
import { inferenceSummary } from './inference-summary';

const result = (rows: number, predictions: number) => ({
  rows,
  predicted: Array.from({ length: predictions }, (_, i) => i / 10),
  output_id: 41,
});

describe('inferenceSummary', () => {
  it('a forecaster: the predictions made and the rows read as its input window', () => {
    expect(inferenceSummary(result(60, 50))).toBe(
      '50 predictions; the first 10 rows are the input window (the model of output #41).',
    );
    expect(inferenceSummary(result(2, 1))).toBe(
      '1 prediction; the first row is the input window (the model of output #41).',
    );
  });

  it('a classifier: one prediction per row', () => {
    expect(inferenceSummary(result(1200, 1200))).toBe(
      '1,200 predictions, one per row (the model of output #41).',
    );
  });
});
