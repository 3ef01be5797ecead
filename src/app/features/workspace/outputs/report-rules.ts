import type { OutputDetail } from '../../../api/outputs';
import { confusionOf, trainingHistoryOf, type Confusion, type PredictionData } from './result-data';

/** The brain tumor Outputs tab's rules (spec workspace.md sections 2, 4, 5 and 9). */

export const MAX_SELECTED = 2;
/** Spec section 2: the comparison text shows this long after the second selection. */
export const COMPARE_NOTICE_MS = 300;
export const TWO_SELECTED = 'You have selected 2 outputs for comparison.';
export const TOO_MANY_SELECTED = 'At most 2 outputs can be selected.';
export const PREDICTION_NOT_SELECTABLE =
  'A prediction cannot be analyzed or compared: select a training output.';
/** A prediction's notice: a research tool, not a diagnosis. */
export const RESEARCH_NOTICE = 'QML Studio is a research tool: this prediction is not a diagnosis.';

/** Spec section 9: report font size 15 px by default, at least 1 px. */
export const FONT_SIZE = { initial: 15, min: 1, step: 1 } as const;
export const nextFontSize = (size: number, direction: 1 | -1): number =>
  Math.max(FONT_SIZE.min, size + direction * FONT_SIZE.step);

/**
 * A checkbox click: the id leaves the selection, or joins it while fewer than 2 are selected; a third is
 * refused with the reason (the selection stays as it was).
 */
export function toggleSelection(
  selected: readonly number[],
  id: number,
): { selected: number[]; refused: string | null } {
  if (selected.includes(id)) return { selected: selected.filter((x) => x !== id), refused: null };
  if (selected.length >= MAX_SELECTED) return { selected: [...selected], refused: TOO_MANY_SELECTED };
  return { selected: [...selected, id], refused: null };
}

export interface ClassMetrics {
  name: string;
  precision: number | undefined;
  recall: number | undefined;
  f1: number | undefined;
}

const PER_CLASS = /^(precision|recall|f1)_(.+)$/;

/** The per-class rows (precision_/recall_/f1_{class}) and the remaining overall metrics. */
export function splitMetrics(metrics: Record<string, number>): {
  overall: Record<string, number>;
  classes: ClassMetrics[];
} {
  const overall: Record<string, number> = {};
  const byClass = new Map<string, ClassMetrics>();
  for (const [key, value] of Object.entries(metrics)) {
    const match = PER_CLASS.exec(key);
    if (!match) {
      if (!key.startsWith('baseline_')) overall[key] = value;
      continue;
    }
    const [, kind, name] = match as unknown as [string, 'precision' | 'recall' | 'f1', string];
    const row = byClass.get(name) ?? { name, precision: undefined, recall: undefined, f1: undefined };
    row[kind] = value;
    byClass.set(name, row);
  }
  return { overall, classes: [...byClass.values()] };
}

/** A share (0..1) as a whole percent for sentences. */
const percent = (share: number): string => `${Math.round(share * 100)}%`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function listWords(parts: string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** The most frequent off-diagonal cell of the matrix (a true class labelled as another), if any. */
export function commonestMistake(
  confusion: Confusion,
): { actual: string; predicted: string; count: number } | null {
  let best: { actual: string; predicted: string; count: number } | null = null;
  confusion.counts.forEach((row, i) =>
    row.forEach((count, j) => {
      const actual = confusion.actual[i];
      const predicted = confusion.predicted[j];
      if (actual === predicted || count <= 0) return;
      if (!best || count > best.count) best = { actual, predicted, count };
    }),
  );
  return best;
}

/** Correct answers (the diagonal, matched by class name) and all answers of the matrix. */
export function confusionTotals(confusion: Confusion): { correct: number; total: number } {
  let correct = 0;
  let total = 0;
  confusion.counts.forEach((row, i) =>
    row.forEach((count, j) => {
      total += count;
      if (confusion.actual[i] === confusion.predicted[j]) correct += count;
    }),
  );
  return { correct, total };
}

/**
 * The Non-Technical report of one training output: plain sentences, each derived from a number the
 * output holds (accuracy, the confusion matrix, per-class recall and F1, the majority baseline, the
 * training history, the dataset's synthetic flag). Nothing is said that the numbers do not show.
 */
export function plainLanguageSummary(
  detail: Pick<OutputDetail, 'metrics' | 'baseline' | 'charts' | 'output_data' | 'dataset'>,
): string[] {
  const sentences: string[] = [];
  const { overall, classes } = splitMetrics(detail.metrics);
  const confusion = confusionOf(detail.charts);
  const totals = confusion ? confusionTotals(confusion) : null;
  if (totals && totals.total > 0) {
    sentences.push(
      `The model labelled ${totals.correct} of ${plural(totals.total, 'test scan')} correctly (${percent(totals.correct / totals.total)}).`,
    );
  } else if (overall.accuracy !== undefined) {
    sentences.push(`The model labelled ${percent(overall.accuracy)} of the test scans correctly.`);
  }
  if (confusion && totals && totals.total > 0) {
    const mistake = commonestMistake(confusion);
    sentences.push(
      mistake
        ? `It most often confused ${mistake.actual} with ${mistake.predicted}: ${plural(mistake.count, `${mistake.actual} scan`)} labelled ${mistake.predicted}.`
        : 'It made no mistakes on the test scans.',
    );
  }
  const recalled = classes.filter((c) => c.recall !== undefined);
  if (recalled.length > 0) {
    sentences.push(
      `It recognised ${listWords(recalled.map((c) => `${percent(c.recall!)} of the ${c.name} scans`))}.`,
    );
  }
  const scored = classes.filter((c) => c.f1 !== undefined).sort((a, b) => b.f1! - a.f1!);
  if (scored.length >= 2 && scored[0].f1! > scored[scored.length - 1].f1!) {
    sentences.push(
      `By F1 score it was most reliable on ${scored[0].name} and least reliable on ${scored[scored.length - 1].name}.`,
    );
  }
  const baseline = detail.baseline?.metrics.accuracy;
  if (baseline !== undefined && overall.accuracy !== undefined) {
    const points = Math.round((overall.accuracy - baseline) * 100);
    const verdict =
      points === 0
        ? 'the model does no better'
        : `the model does ${Math.abs(points)} points ${points > 0 ? 'better' : 'worse'}`;
    sentences.push(
      `Always answering the most common class would be right ${percent(baseline)} of the time: ${verdict}.`,
    );
  }
  const history = trainingHistoryOf(detail);
  const loss = history?.loss;
  if (loss && loss.length >= 2) {
    const [first, last] = [loss[0], loss[loss.length - 1]];
    sentences.push(
      `Over ${plural(loss.length, 'epoch')} the training loss ${last < first ? 'fell' : last > first ? 'rose' : 'stayed'} ${last === first ? `at ${first.toFixed(2)}` : `from ${first.toFixed(2)} to ${last.toFixed(2)}`}.`,
    );
  }
  const validation = history?.val_accuracy;
  if (validation && validation.length > 0)
    sentences.push(`Validation accuracy ended at ${percent(validation[validation.length - 1])}.`);
  if (detail.dataset?.synthetic)
    sentences.push(
      'These scans are synthetic: the numbers show how the model learns, not how it would do on real patients.',
    );
  return sentences;
}

export interface DifferenceRow {
  metric: string;
  first: number | undefined;
  second: number | undefined;
  /** second − first, when both exist. */
  difference: number | undefined;
}

/** Every metric of either output (baseline_* keys aside), both values and second − first. */
export function metricDifferences(
  first: Record<string, number>,
  second: Record<string, number>,
): DifferenceRow[] {
  const names = [...new Set([...Object.keys(first), ...Object.keys(second)])].filter(
    (name) => !name.startsWith('baseline_'),
  );
  // Overall metrics first, then the per-class ones grouped by kind.
  const perClass = (name: string) => Number(PER_CLASS.test(name));
  names.sort((a, b) => perClass(a) - perClass(b) || a.localeCompare(b));
  return names.map((metric) => {
    const [a, b] = [first[metric], second[metric]];
    return {
      metric,
      first: a,
      second: b,
      difference: a !== undefined && b !== undefined ? b - a : undefined,
    };
  });
}

/** The Non-Technical comparison: which output labelled more test scans correctly, by how much. */
export function plainLanguageComparison(
  first: { label: string; metrics: Record<string, number> },
  second: { label: string; metrics: Record<string, number> },
): string[] {
  const [a, b] = [first.metrics.accuracy, second.metrics.accuracy];
  if (a === undefined || b === undefined) return [];
  const sentences = [
    `${first.label} labelled ${percent(a)} of its test scans correctly, ${second.label} ${percent(b)}.`,
  ];
  const points = Math.round((b - a) * 100);
  sentences.push(
    points === 0
      ? 'Their accuracy is the same to the nearest point.'
      : `${points > 0 ? second.label : first.label} was right ${Math.abs(points)} points more often.`,
  );
  const recallGaps = splitMetrics(first.metrics)
    .classes.map((c) => ({ name: c.name, a: c.recall, b: second.metrics[`recall_${c.name}`] }))
    .filter((c): c is { name: string; a: number; b: number } => c.a !== undefined && c.b !== undefined)
    .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a));
  const widest = recallGaps[0];
  if (widest && Math.round(Math.abs(widest.b - widest.a) * 100) > 0) {
    sentences.push(
      `They differ most on ${widest.name}: ${first.label} recognised ${percent(widest.a)} of those scans, ${second.label} ${percent(widest.b)}.`,
    );
  }
  return sentences;
}

/** A probability or share with 2 decimals (spec section 9), as a percent. */
export const asPercent = (share: number): string => `${(share * 100).toFixed(2)} %`;

/** The classes by probability, highest first. */
export const ranked = (probabilities: Record<string, number>): [string, number][] =>
  Object.entries(probabilities).sort((a, b) => b[1] - a[1]);

/** Sentences derived from the probabilities and from the model's own test metrics for the predicted class. */
export function predictionInsights(
  prediction: PredictionData,
  training: Pick<OutputDetail, 'metrics'> | null,
): string[] {
  const order = ranked(prediction.probabilities);
  const sentences: string[] = [];
  if (order.length >= 2) {
    const [[top, p1], [next, p2]] = order;
    sentences.push(
      `The model gave ${top} ${asPercent(p1)} and the next class, ${next}, ${asPercent(p2)}: a margin of ${((p1 - p2) * 100).toFixed(2)} points.`,
    );
  }
  const own = training
    ? splitMetrics(training.metrics).classes.find((c) => c.name === prediction.prediction)
    : undefined;
  if (own?.precision !== undefined)
    sentences.push(
      `On its test scans, when this model answered ${own.name} it was right ${asPercent(own.precision)} of the time.`,
    );
  if (own?.recall !== undefined)
    sentences.push(`It recognised ${asPercent(own.recall)} of the ${own.name} test scans.`);
  return sentences;
}
