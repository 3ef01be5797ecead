// @vitest-environment jsdom
// The landing comparison's loss chart says what its axes are: loss (its highest and lowest value) against
// the epoch (the first and the last), with both lines drawn.
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { LossChart } from './demo-charts';

afterEach(cleanup);

it('names its axes and their ends: loss from lowest to highest, epochs from the first to the last', () => {
  render(<LossChart train={[0.9, 0.5, 0.25]} test={[1.2, 0.7, 0.4]} title="Classical model" />);
  const chart = screen.getByRole('img', { name: 'Classical model: training and test loss per epoch' });
  const texts = [...chart.querySelectorAll('text')].map((text) => text.textContent);
  expect(texts).toEqual(['1.200', '0.250', 'Loss', '1', '3', 'Epoch']);
  expect(chart.querySelectorAll('polyline')).toHaveLength(2);
});

it('shows one epoch tick for a single epoch', () => {
  render(<LossChart train={[0.9]} title="Quantum model" />);
  const texts = [...screen.getByRole('img').querySelectorAll('text')].map((text) => text.textContent);
  expect(texts).toEqual(['0.900', '0.900', 'Loss', '1', 'Epoch']);
});
