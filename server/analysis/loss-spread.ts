// The spread of a repeated run's loss curves: the worker records, for a run repeated over seeds,
// the per-epoch mean and sample standard deviation of its training and test losses
// (result.repeats.losses); the history the comparison and the run table draw is that mean, and this
// gives the sd beside it, under the history's own names, so their charts draw the band.

import { isPlainObject } from '../../src/engine';

export interface LossSpread {
  /** How many seeds the run was repeated over. */
  seeds: number;
  /** Per-epoch sample standard deviation of each history series (train_loss, test_loss). */
  sd: { train_loss: number[]; test_loss: number[] };
}

const numbers = (value: unknown): number[] | null =>
  Array.isArray(value) && value.every((v) => typeof v === 'number' && Number.isFinite(v))
    ? (value as number[])
    : null;

/** The loss spread of a result's repeats block; null for a single run or a run without epochs. */
export function lossSpreadOf(repeats: unknown): LossSpread | null {
  if (!isPlainObject(repeats) || typeof repeats.count !== 'number' || !isPlainObject(repeats.losses))
    return null;
  const { train, test } = repeats.losses;
  const trainSd = isPlainObject(train) ? numbers(train.sd) : null;
  const testSd = isPlainObject(test) ? numbers(test.sd) : null;
  if (!trainSd || !testSd) return null;
  return { seeds: repeats.count, sd: { train_loss: trainSd, test_loss: testSd } };
}

/** A run's per-epoch training and test losses in replies (its history, or their spread over seeds). */
export const lossCurvesSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['train_loss', 'test_loss'],
  properties: {
    train_loss: { type: 'array', items: { type: 'number' } },
    test_loss: { type: 'array', items: { type: 'number' } },
  },
} as const;

/** Its JSON schema in replies. */
export const lossSpreadSchema = {
  anyOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['seeds', 'sd'],
      properties: {
        seeds: { type: 'integer' },
        sd: lossCurvesSchema,
      },
    },
    { type: 'null' },
  ],
} as const;
