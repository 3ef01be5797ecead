// The compare reply's class names of a run's confusion matrix: from its confusion-matrix chart, only
// when they fit the matrix; the landing page falls back to class numbers on null.
import { describe, expect, it } from 'vitest';
import type { JobResult } from '../jobs/job-result';
import { confusionLabels } from './demo-results-data';

const chart = (categories: (string | number)[]) => ({
  type: 'confusion_matrix' as const,
  title: 'Confusion Matrix',
  label: 'rows',
  series: [],
  categories,
});
const matrix = [
  [5, 1],
  [2, 7],
];

describe('confusionLabels', () => {
  it("names the classes from the run's confusion-matrix chart", () => {
    const result = { confusion_matrix: matrix, charts: [chart(['legit', 'fraud'])] } as unknown as JobResult;
    expect(confusionLabels(result)).toEqual(['legit', 'fraud']);
  });

  it('gives null without a chart, without a matrix, or when the names do not fit the matrix', () => {
    expect(confusionLabels({ confusion_matrix: matrix, charts: [] } as unknown as JobResult)).toBeNull();
    expect(confusionLabels({ charts: [chart(['a', 'b'])] } as unknown as JobResult)).toBeNull();
    expect(
      confusionLabels({ confusion_matrix: matrix, charts: [chart(['a', 'b', 'c'])] } as unknown as JobResult),
    ).toBeNull();
    expect(confusionLabels(null)).toBeNull();
  });

  it('keeps numeric class names as text', () => {
    const result = { confusion_matrix: matrix, charts: [chart([0, 1])] } as unknown as JobResult;
    expect(confusionLabels(result)).toEqual(['0', '1']);
  });
});
