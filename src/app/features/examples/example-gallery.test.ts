// The gallery's pure rules: examples joined with their samples by file, the search, the sections.
import { describe, expect, it } from 'vitest';
import { EXAMPLES, SAMPLES } from './example-fixtures.test-data';
import { gallerySections, joinSamples, matchesSearch } from './example-gallery';

const items = joinSamples(EXAMPLES, SAMPLES);
const names = (query: string) =>
  gallerySections(items, query).map((s) => [s.heading, s.items.map((i) => i.example.app_name)]);

describe('the example gallery', () => {
  it('joins each example with the sample its dataset names (by file), none for a file not shipped', () => {
    expect(items.map((item) => [item.example.problem_id, item.sample?.rows, item.sample?.synthetic])).toEqual(
      [
        ['stock-price-prediction', 5370, false],
        ['fraud-detection', 5000, true],
        ['brain-tumor', undefined, undefined],
      ],
    );
  });

  it('puts the examples under Financial Applications and Bioinformatics Applications, in order', () => {
    expect(names('')).toEqual([
      ['Financial Applications', ['Stock Price Prediction Example', 'Fraud Detection Example']],
      ['Bioinformatics Applications', ['Brain Tumor Example']],
    ]);
  });

  it('searches case-insensitively in name, problem, description and dataset; every word must match', () => {
    expect(names('FRAUD')).toEqual([['Financial Applications', ['Fraud Detection Example']]]);
    expect(names('mri')).toEqual([['Bioinformatics Applications', ['Brain Tumor Example']]]);
    expect(names('apple google')).toEqual([['Financial Applications', ['Stock Price Prediction Example']]]);
    expect(names('apple fraud')).toEqual([]);
    expect(names('   ')).toHaveLength(2);
    expect(matchesSearch(items[0]!, 'bioinformatics')).toBe(false);
  });
});
