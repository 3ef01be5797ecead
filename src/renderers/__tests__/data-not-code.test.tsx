// @vitest-environment jsdom
// "Data, not code": a new problem file in a schemas directory (a copy of an existing one with a
// new id and name, a relabelled field and one more field) is loaded with the Node loader and the
// engine registry, and the renderers draw its forms and its pipeline with no code change.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { DEFAULT_SCHEMAS_DIR, loadRegistry } from '../../engine/node/load-schemas';
import type { Problem } from '../../engine';
import { Harness, fieldOf, installFlowPolyfills, messagesIn } from './support';

let dir: string;
let problem: Problem;

beforeAll(() => {
  installFlowPolyfills();
  dir = mkdtempSync(path.join(tmpdir(), 'qml-renderers-'));
  cpSync(DEFAULT_SCHEMAS_DIR, dir, { recursive: true });
  const source = JSON.parse(readFileSync(path.join(dir, 'problems/demand-forecasting.json'), 'utf8'));
  source.id = 'energy-load-forecasting';
  source.name = 'Energy Load Forecasting';
  source.order = 7;
  source.example.appName = 'Energy Load Forecasting Example';
  const model = source.forms.model_configurations;
  model.schema.properties.epochs.title = 'Training Epochs';
  model.schema.properties.batch_size = {
    title: 'Batch Size',
    description: 'Samples per gradient step.',
    type: 'integer',
    enum: [16, 32, 64],
    default: 32,
    'x-field': { kind: 'select', placeholder: 'Select a batch size' },
    errorMessage: { enum: 'Batch size must be 16, 32 or 64' },
  };
  model.schema.required.push('batch_size');
  model.sections.push({ id: 'training', heading: 'Training', fields: ['batch_size'] });
  source.example.appData.model_configurations.batch_size = 32;
  writeFileSync(path.join(dir, 'problems/energy-load-forecasting.json'), JSON.stringify(source, null, 2));
  problem = loadRegistry(dir).getProblem('energy-load-forecasting');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(cleanup);

describe('a problem that exists only as a file', () => {
  it('renders its forms, with the new label and the new field', () => {
    const view = render(<Harness problem={problem} tab="both" />);
    expect(screen.getByRole('heading', { name: 'Training' })).toBeTruthy();
    expect(fieldOf(view.container, 'model', 'epochs').textContent).toContain('Training Epochs');
    const batch = fieldOf(view.container, 'model', 'batch_size');
    const select = within(batch).getByRole<HTMLSelectElement>('combobox');
    expect(select.options[select.selectedIndex]!.textContent).toBe('32');
    fireEvent.change(select, { target: { value: '' } });
    expect(messagesIn(batch)).toEqual(['This field is required']);
    expect(fieldOf(view.container, 'dataset', 'training_features')).toBeTruthy();
    expect(fieldOf(view.container, 'dataset', 'splitter')).toBeTruthy();
  });

  it('draws its pipeline', () => {
    render(<Harness problem={problem} tab="model" withPipeline />);
    expect(screen.getByText('Pipeline is Read Only')).toBeTruthy();
    expect(screen.getByText('Run Energy Load Forecasting')).toBeTruthy();
    expect(screen.getByTestId('pipeline-node-model_configurations:training').textContent).toContain(
      'Batch Size32',
    );
  });
});
