// The demo sections' pure rules: heatmap thirds of the maximum, plain-language lines and the verdict.
import { describe, expect, it } from 'vitest';
import type { DemoOutput } from './api/get-demo-compare';
import { heatLevel } from './demo-charts';
import { metricRows, plainLines, verdict } from './interpretation';

const output = (id: number, model_type: string, metrics: Record<string, number> | null): DemoOutput => ({
  id,
  name: `run ${id}`,
  status: 'Completed',
  created_at: null,
  completed_at: null,
  model_type,
  metrics,
  training_data: null,
  losses: null,
  confusion_matrix: null,
});

describe('demo interpretation', () => {
  it('colours the confusion heatmap in thirds of the largest count', () => {
    expect([0, 30, 31, 60, 61, 90].map((v) => heatLevel(v, 90))).toEqual([
      'low',
      'low',
      'mid',
      'mid',
      'high',
      'high',
    ]);
    expect(heatLevel(0, 0)).toBe('low');
  });

  it('says what the metrics mean in plain words, and which model did better', () => {
    const quantum = output(336, 'Quantum', { accuracy: 0.914, precision: 0.5, rmse: 1.23456 });
    const classical = output(338, 'Classical', { accuracy: 0.88 });
    expect(plainLines(quantum)).toEqual([
      'The quantum model got 91 of every 100 test cases right.',
      'When it raised an alarm, it was right 50 times out of 100.',
      "The quantum model's predictions were off by about 1.23 on average (RMSE).",
    ]);
    expect(plainLines(output(1, 'Classical', null))).toEqual([
      "The classical model's results are listed in the technical view.",
    ]);
    expect(verdict([classical, quantum])).toBe(
      'Quantum model (output 336) was the more accurate on this example.',
    );
    expect(verdict([classical])).toBeNull();
    expect(metricRows(quantum)).toEqual([
      ['accuracy', '0.914'],
      ['precision', '0.500'],
      ['rmse', '1.23'],
    ]);
  });
});
