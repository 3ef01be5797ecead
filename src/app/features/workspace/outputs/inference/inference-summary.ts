import type { InferenceResult } from '../../../../api/outputs';

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/**
 * What an inference did, in numbers that agree with the table under it: one prediction per row, or
 * fewer when a forecaster reads a window of rows before its first prediction ('50 predictions; the
 * first 10 rows are the input window'), never the file's row count as if each row were predicted.
 */
export function inferenceSummary(result: Pick<InferenceResult, 'rows' | 'predicted' | 'output_id'>): string {
  const predictions = result.predicted.length;
  const window = result.rows - predictions;
  const rowsRead = window === 1 ? 'the first row is' : `the first ${plural(window, 'row')} are`;
  const what =
    window > 0
      ? `${plural(predictions, 'prediction')}; ${rowsRead} the input window`
      : `${plural(predictions, 'prediction')}, one per row`;
  return `${what} (the model of output #${result.output_id}).`;
}
