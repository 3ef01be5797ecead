// @vitest-environment jsdom
// Every message the renderers show, produced through the rendered form (typing, choosing,
// unticking), and shown on the field it belongs to.

import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { createDefaultAppData, createExampleAppData, type AppData } from '../../engine';
import { Harness, fieldOf, messagesIn, testRegistry } from './support';

afterEach(cleanup);

const registry = testRegistry();
const stock = registry.getProblem('stock-price-prediction');
const brain = registry.getProblem('brain-tumor');
const portfolio = registry.getProblem('portfolio-optimization');

function type(input: HTMLElement, value: string) {
  fireEvent.change(input, { target: { value } });
}

describe('splitter (From Index / To Index) with a dataset of 150 rows', () => {
  const context = { rowCount: 150, columns: ['Date', 'Open', 'High', 'Low', 'Close'] };

  function renderSplitter() {
    const view = render(<Harness problem={stock} tab="dataset" context={context} />);
    const splitter = fieldOf(view.container, 'dataset', 'splitter');
    return {
      splitter,
      from: within(splitter).getByLabelText('From Index'),
      to: within(splitter).getByLabelText('To Index'),
      save: screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement,
    };
  }

  it('shows each rule with the row count, and Save is disabled while errors exist', () => {
    const { splitter, from, to, save } = renderSplitter();
    expect(messagesIn(splitter)).toEqual([]);
    expect(save.disabled).toBe(false);

    type(from, '0');
    expect(messagesIn(splitter)).toEqual(['From Index must be at least 1']);
    expect(save.disabled).toBe(true);

    type(from, '151');
    expect(messagesIn(splitter)).toContain('From Index cannot exceed 150');

    type(from, '1');
    type(to, '151');
    expect(messagesIn(splitter)).toEqual(['To Index cannot exceed 150']);

    type(from, '50');
    type(to, '40');
    expect(messagesIn(splitter)).toEqual(['To Index must be greater than or equal to From Index']);

    type(to, '55');
    expect(messagesIn(splitter)).toEqual(['To Index must be at least 10 greater than From Index']);
    expect(save.disabled).toBe(true);

    type(to, '60');
    expect(messagesIn(splitter)).toEqual([]);
    expect(save.disabled).toBe(false);
  });

  it('requires both indices', () => {
    const { splitter, from, save } = renderSplitter();
    type(from, '');
    expect(messagesIn(splitter)).toEqual(['From Index is required']);
    expect(save.disabled).toBe(true);
  });

  it('defaults to 1 .. min(rows, 100), and Reset range puts the defaults back', () => {
    for (const rowCount of [60, 1258]) {
      const ctx = { rowCount, columns: ['Open', 'Close'] };
      const view = render(
        <Harness problem={stock} tab="dataset" context={ctx} initial={createDefaultAppData(stock, ctx)} />,
      );
      const splitter = fieldOf(view.container, 'dataset', 'splitter');
      const from = within(splitter).getByLabelText<HTMLInputElement>('From Index');
      const to = within(splitter).getByLabelText<HTMLInputElement>('To Index');
      expect([from.value, to.value]).toEqual(['1', String(Math.min(rowCount, 100))]);
      type(from, '7');
      type(to, '9');
      fireEvent.click(within(splitter).getByRole('button', { name: 'Reset range' }));
      expect([from.value, to.value]).toEqual(['1', String(Math.min(rowCount, 100))]);
      cleanup();
    }
  });
});

describe('brain tumor training range', () => {
  it('shows its own messages', () => {
    const view = render(<Harness problem={brain} tab="dataset" />);
    const range = fieldOf(view.container, 'dataset', 'training_range');
    const from = within(range).getByLabelText('From Index');
    const to = within(range).getByLabelText('To Index');
    type(from, '200');
    expect(messagesIn(range)).toEqual([
      'From Index must be less than To Index',
      'To Index must be greater than From Index',
    ]);
    type(from, '1');
    type(to, '3065');
    // The loaded dataset has 3064 images: its limit speaks first.
    expect(messagesIn(range)).toEqual(['To Index must not exceed 3064']);
    type(to, '2.5');
    expect(messagesIn(range)).toEqual(['To Index must be an integer']);
  });

  it('without a loaded dataset, the fixed limit of 3064', () => {
    const view = render(<Harness problem={brain} tab="dataset" context={{}} />);
    const range = fieldOf(view.container, 'dataset', 'training_range');
    type(within(range).getByLabelText('To Index'), '3065');
    expect(messagesIn(range)).toEqual(['To Index must be less than or equal to 3064']);
    type(within(range).getByLabelText('From Index'), '0');
    expect(messagesIn(range)).toEqual(['must be at least 1', 'To Index must be less than or equal to 3064']);
  });
});

describe('column lists and required choices', () => {
  it("shows 'No features selected' when a feature checklist is emptied", () => {
    const view = render(<Harness problem={stock} tab="dataset" />);
    const features = fieldOf(view.container, 'dataset', 'training_features');
    fireEvent.click(within(features).getByRole('button', { name: 'Clear' }));
    expect(messagesIn(features)).toEqual(['No features selected']);
    fireEvent.click(within(features).getByLabelText('Volume'));
    expect(messagesIn(features)).toEqual([]);
  });

  it('hides the id, date, ticker, ... columns from the choices', () => {
    const view = render(<Harness problem={stock} tab="dataset" />);
    const features = fieldOf(view.container, 'dataset', 'training_features');
    const names = within(features)
      .getAllByRole('checkbox')
      .map((box) => box.parentElement!.textContent);
    expect(names).toEqual(['Open', 'High', 'Low', 'Close', 'Adj Close', 'Volume']);
  });

  it("shows 'This field is required' for an emptied select", () => {
    const view = render(<Harness problem={stock} tab="dataset" />);
    const missing = fieldOf(view.container, 'dataset', 'missing_values');
    fireEvent.change(within(missing).getByRole('combobox'), { target: { value: '' } });
    expect(messagesIn(missing)).toEqual(['This field is required']);
  });

  it("shows 'This field is required' for a radio with a column selector left empty", () => {
    const fraud = registry.getProblem('fraud-detection');
    const { appData } = createExampleAppData(fraud);
    const initial: AppData = { ...appData, preprocess: { ...appData.preprocess, column: undefined } };
    const view = render(<Harness problem={fraud} tab="dataset" initial={initial} />);
    const column = fieldOf(view.container, 'dataset', 'column');
    expect(messagesIn(column)).toEqual(['This field is required']);
    fireEvent.click(within(column).getByLabelText('Class'));
    expect(messagesIn(column)).toEqual([]);
  });
});

describe('model configuration rules', () => {
  function renderModel(problem = stock) {
    const view = render(<Harness problem={problem} tab="model" />);
    return (name: string) => fieldOf(view.container, 'model', name);
  }

  it('epochs: 5 to 100', () => {
    const field = renderModel();
    const epochs = field('epochs');
    type(within(epochs).getByRole('spinbutton'), '3');
    expect(messagesIn(epochs)).toEqual(['Epochs must be greater than or equal to 5']);
    type(within(epochs).getByRole('spinbutton'), '101');
    expect(messagesIn(epochs)).toEqual(['Epochs must be less than or equal to 100']);
    type(within(epochs).getByRole('spinbutton'), '');
    expect(messagesIn(epochs)).toEqual(['Epochs is required']);
    type(within(epochs).getByRole('spinbutton'), '40');
    expect(messagesIn(epochs)).toEqual([]);
  });

  it('qubits: required for Quantum (the message raised at the parent shows on the field), 4 to 10', () => {
    const field = renderModel();
    const qubits = field('qubits');
    type(within(qubits).getByRole('spinbutton'), '');
    expect(messagesIn(qubits)).toEqual(['Qubits is required']);
    type(within(qubits).getByRole('spinbutton'), '3');
    expect(messagesIn(qubits)).toEqual(['Qubits must be at least 4']);
    type(within(qubits).getByRole('spinbutton'), '11');
    expect(messagesIn(qubits)).toEqual(['Qubits must be at most 10']);
  });

  it('model type: required', () => {
    const field = renderModel();
    fireEvent.change(within(field('model_type')).getByRole('combobox'), { target: { value: '' } });
    expect(messagesIn(field('model_type'))).toEqual(['Model type is required']);
  });

  it('portfolio risk factor and budget', () => {
    const view = render(<Harness problem={portfolio} tab="dataset" />);
    const risk = fieldOf(view.container, 'dataset', 'risk_factor');
    type(within(risk).getByRole('spinbutton'), '');
    expect(messagesIn(risk)).toEqual(['Risk factor is required']);
    type(within(risk).getByRole('spinbutton'), '6');
    expect(messagesIn(risk)).toEqual(['Risk factor must be less than or equal to 5']);
    const budget = fieldOf(view.container, 'dataset', 'budget');
    type(within(budget).getByRole('spinbutton'), '11');
    expect(messagesIn(budget)).toEqual(['Budget must be at most 10']);
    type(within(budget).getByRole('spinbutton'), '2.5');
    expect(messagesIn(budget)).toEqual(['Budget must be an integer']);
  });
});
