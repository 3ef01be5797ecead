// The trainings-and-predictions list's rules: selection (at most 2), font size (from 15, at least 1) and
// the plain-language sentences, each checked against the numbers it is derived from.
import { describe, expect, it } from 'vitest';
import type { OutputDetail } from '../../../api/outputs';
import { confusionOf, predictionOf, resultTypeOf, trainingHistoryOf } from './result-data';
import {
  commonestMistake,
  confusionTotals,
  FONT_SIZE,
  metricDifferences,
  nextFontSize,
  plainLanguageComparison,
  plainLanguageSummary,
  predictionInsights,
  splitMetrics,
  toggleSelection,
  TOO_MANY_SELECTED,
} from './report-rules';

const confusionChart = (rows: Record<string, number[]>) => ({
  type: 'confusion_matrix' as const,
  title: 'Confusion Matrix',
  label: 'scans',
  series: Object.entries(rows).map(([name, data]) => ({ name: `true ${name}`, data })),
  categories: ['meningioma', 'glioma', 'pituitary'],
});

type Report = Pick<OutputDetail, 'metrics' | 'baseline' | 'charts' | 'output_data' | 'dataset'>;
const training = (over: Partial<Report> = {}): Report => ({
  metrics: {
    accuracy: 0.8,
    macro_f1: 0.78,
    precision_meningioma: 0.7,
    recall_meningioma: 0.75,
    f1_meningioma: 0.72,
    precision_glioma: 0.85,
    recall_glioma: 0.8,
    f1_glioma: 0.82,
    precision_pituitary: 0.9,
    recall_pituitary: 1,
    f1_pituitary: 0.95,
  },
  baseline: { name: 'Majority class', metrics: { accuracy: 0.5 } },
  // 8 of 10 right; the commonest mistake: glioma scans labelled meningioma (2).
  charts: [confusionChart({ meningioma: [3, 0, 0], glioma: [2, 3, 0], pituitary: [0, 0, 2] })],
  output_data: {
    result_type: 'Training',
    training_history: { loss: [1.2, 0.9, 0.5], accuracy: [0.4, 0.6, 0.8], val_accuracy: [0.35, 0.5, 0.7] },
  } as unknown as OutputDetail['output_data'],
  dataset: {
    label: 'Sample Dataset 1 (2020-2024) (synthetic)',
    synthetic: true,
    sha256: 'x',
    rows: 3064,
    rows_used: 50,
  },
  ...over,
});

describe('selection', () => {
  it('selects up to 2, refuses a third with the reason and keeps the two, and unselects', () => {
    let state = toggleSelection([], 4);
    expect(state).toEqual({ selected: [4], refused: null });
    state = toggleSelection(state.selected, 7);
    expect(state).toEqual({ selected: [4, 7], refused: null });
    expect(toggleSelection(state.selected, 9)).toEqual({ selected: [4, 7], refused: TOO_MANY_SELECTED });
    expect(toggleSelection(state.selected, 4)).toEqual({ selected: [7], refused: null });
  });
});

describe('font size', () => {
  it('starts at 15 px, grows and shrinks by 1 px, never below 1 px', () => {
    expect(FONT_SIZE.initial).toBe(15);
    expect(nextFontSize(15, 1)).toBe(16);
    expect(nextFontSize(15, -1)).toBe(14);
    expect(nextFontSize(1, -1)).toBe(1);
  });
});

describe('reading outputs', () => {
  it('splits per-class metrics from the overall ones (baseline_* left out)', () => {
    const { overall, classes } = splitMetrics({ ...training().metrics, baseline_accuracy: 0.5 });
    expect(overall).toEqual({ accuracy: 0.8, macro_f1: 0.78 });
    expect(classes.map((c) => c.name)).toEqual(['meningioma', 'glioma', 'pituitary']);
    expect(classes[1]).toEqual({ name: 'glioma', precision: 0.85, recall: 0.8, f1: 0.82 });
  });

  it('reads the confusion matrix: totals and the commonest mistake', () => {
    const confusion = confusionOf(training().charts)!;
    expect(confusion.actual).toEqual(['meningioma', 'glioma', 'pituitary']);
    expect(confusionTotals(confusion)).toEqual({ correct: 8, total: 10 });
    expect(commonestMistake(confusion)).toEqual({ actual: 'glioma', predicted: 'meningioma', count: 2 });
  });

  it('tolerates an output without result type, history or prediction', () => {
    expect(resultTypeOf({ id: 1 })).toBeNull();
    expect(resultTypeOf({ result_type: 'Prediction' })).toBe('Prediction');
    const bare = { output_data: { result_type: 'Training', training_history: null } } as Report;
    expect(trainingHistoryOf(bare)).toBeNull();
    expect(predictionOf(bare)).toBeNull();
  });
});

describe('Non-Technical sentences', () => {
  it('says what the numbers say: correct of total, the commonest confusion, recall, baseline, history', () => {
    expect(plainLanguageSummary(training())).toEqual([
      'The model labelled 8 of 10 test scans correctly (80%).',
      'It most often confused glioma with meningioma: 2 glioma scans labelled meningioma.',
      'It recognised 75% of the meningioma scans, 80% of the glioma scans and 100% of the pituitary scans.',
      'By F1 score it was most reliable on pituitary and least reliable on meningioma.',
      'Always answering the most common class would be right 50% of the time: the model does 30 points better.',
      'Over 3 epochs the training loss fell from 1.20 to 0.50.',
      'Validation accuracy ended at 70%.',
      'These scans are synthetic: the numbers show how the model learns, not how it would do on real patients.',
    ]);
  });

  it('changes with the numbers: no mistakes, a model worse than the baseline, real data', () => {
    const sentences = plainLanguageSummary(
      training({
        metrics: { accuracy: 0.4 },
        charts: [confusionChart({ meningioma: [2, 0, 0], glioma: [0, 0, 0], pituitary: [0, 0, 0] })],
        output_data: { result_type: 'Training', training_history: null },
        dataset: null,
      }),
    );
    expect(sentences).toContain('It made no mistakes on the test scans.');
    expect(sentences).toContain(
      'Always answering the most common class would be right 50% of the time: the model does 10 points worse.',
    );
    expect(sentences.join(' ')).not.toMatch(/synthetic|epoch/);
  });

  it('says nothing when the output has no metrics', () => {
    expect(
      plainLanguageSummary(
        training({ metrics: {}, charts: [], baseline: null, output_data: {} as never, dataset: null }),
      ),
    ).toEqual([]);
  });
});

describe('comparison', () => {
  it('lists every metric of both with second − first', () => {
    const rows = metricDifferences({ accuracy: 0.8, recall_glioma: 0.5 }, { accuracy: 0.65, loss: 0.3 });
    expect(rows.map((r) => r.metric)).toEqual(['accuracy', 'loss', 'recall_glioma']);
    expect(rows[0].difference).toBeCloseTo(-0.15);
    expect(rows[1]).toEqual({ metric: 'loss', first: undefined, second: 0.3, difference: undefined });
  });

  it('says which labelled more scans correctly and where they differ most', () => {
    const sentences = plainLanguageComparison(
      {
        label: 'Output #1 densenet121',
        metrics: { accuracy: 0.8, recall_glioma: 0.9, recall_pituitary: 0.7 },
      },
      { label: 'Output #2 QCNN', metrics: { accuracy: 0.65, recall_glioma: 0.5, recall_pituitary: 0.7 } },
    );
    expect(sentences).toEqual([
      'Output #1 densenet121 labelled 80% of its test scans correctly, Output #2 QCNN 65%.',
      'Output #1 densenet121 was right 15 points more often.',
      'They differ most on glioma: Output #1 densenet121 recognised 90% of those scans, Output #2 QCNN 50%.',
    ]);
  });
});

describe('prediction insights', () => {
  it("derives the margin from the probabilities and the model's test precision and recall", () => {
    const prediction = predictionOf({
      output_data: {
        result_type: 'Prediction',
        prediction: 'glioma',
        probabilities: { meningioma: 0.15, glioma: 0.8, pituitary: 0.05 },
      } as never,
    })!;
    expect(predictionInsights(prediction, null)).toEqual([
      'The model gave glioma 80.00 % and the next class, meningioma, 15.00 %: a margin of 65.00 points.',
    ]);
    expect(predictionInsights(prediction, { metrics: training().metrics })).toEqual([
      'The model gave glioma 80.00 % and the next class, meningioma, 15.00 %: a margin of 65.00 points.',
      'On its test scans, when this model answered glioma it was right 85.00 % of the time.',
      'It recognised 80.00 % of the glioma test scans.',
    ]);
  });
});
