// @vitest-environment jsdom
// Behaviour of the custom widgets and of the pipeline through the rendered components: device
// picker and custom token rules, branch defaults, pruning on save, the read-only pipeline and
// the Fill missing button, and 'Wrong configurations.'.

import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { createExampleAppData, type AppData, type Problem } from '../../engine';
import { PipelineFlow } from '../pipeline-flow';
import { SchemaForm } from '../schema-form';
import { Harness, fieldOf, installFlowPolyfills, messagesIn, testRegistry } from './support';

beforeAll(installFlowPolyfills);
afterEach(cleanup);

const registry = testRegistry();
const stock = registry.getProblem('stock-price-prediction');

function selectedText(select: HTMLElement): string {
  const s = select as HTMLSelectElement;
  return s.options[s.selectedIndex]?.textContent ?? '';
}

describe('quantum device picker', () => {
  function openPicker() {
    const view = render(<Harness problem={stock} tab="model" />);
    const device = fieldOf(view.container, 'model', 'quantum_device');
    fireEvent.click(within(device).getByRole('button', { name: 'Select Quantum Device' }));
    return { view, device, dialog: screen.getByRole('dialog', { name: 'Quantum Device' }) };
  }

  it('is in simulator mode by default with the first simulator; noise model None', () => {
    const { dialog } = openPicker();
    expect(within(dialog).getByRole<HTMLInputElement>('checkbox', { name: 'Use Simulator' }).checked).toBe(
      true,
    );
    const simulator = within(dialog).getByLabelText<HTMLSelectElement>(/^Simulator/);
    expect(simulator.disabled).toBe(false);
    expect(selectedText(simulator)).toBe('aer_simulator_statevector');
    expect(simulator.options[1]!.textContent).toBe('aer_simulator_statevector');
    const real = within(dialog).getByLabelText<HTMLSelectElement>(/^Quantum Device/);
    expect(real.disabled).toBe(true);
    expect(selectedText(within(dialog).getByLabelText(/^Noise Model/))).toBe('None');
  });

  it('enables the real-device select only outside simulator mode, and hides the noise model there', () => {
    const { dialog, device } = openPicker();
    fireEvent.click(within(dialog).getByRole('checkbox', { name: 'Use Simulator' }));
    expect(within(dialog).getByLabelText<HTMLSelectElement>(/^Simulator/).disabled).toBe(true);
    const real = within(dialog).getByLabelText<HTMLSelectElement>(/^Quantum Device/);
    expect(real.disabled).toBe(false);
    expect(within(dialog).queryByLabelText(/^Noise Model/)).toBeNull();
    expect(messagesIn(dialog)).toEqual(['Quantum device is required']);

    fireEvent.change(real, { target: { value: '1' } });
    expect(selectedText(real)).toBe('ibm_kyiv');
    expect(messagesIn(dialog)).toEqual([]);

    fireEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(device.textContent).toContain('Real quantum device');
    expect(device.textContent).toContain('ibm_kyiv');
  });

  it('returns to the simulator with its select enabled and the noise model shown', () => {
    const { dialog } = openPicker();
    const toggle = within(dialog).getByRole('checkbox', { name: 'Use Simulator' });
    fireEvent.click(toggle);
    fireEvent.click(toggle);
    const simulator = within(dialog).getByLabelText<HTMLSelectElement>(/^Simulator/);
    expect(simulator.disabled).toBe(false);
    expect(selectedText(simulator)).toBe('aer_simulator_statevector');
    expect(within(dialog).getByLabelText<HTMLSelectElement>(/^Quantum Device/).disabled).toBe(true);
    expect(selectedText(within(dialog).getByLabelText(/^Noise Model/))).toBe('None');
  });

  it('closes on Escape', () => {
    openPicker();
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('custom IBM token', () => {
  function openToken(onSave?: (data: AppData) => void) {
    const view = render(<Harness problem={stock} tab="model" onSave={onSave} />);
    const device = fieldOf(view.container, 'model', 'quantum_device');
    fireEvent.click(within(device).getByRole('button', { name: 'Custom IBM Token' }));
    const dialog = screen.getByRole('dialog', { name: 'Custom IBM Token' });
    return {
      dialog,
      tick: within(dialog).getByRole<HTMLInputElement>('checkbox', { name: 'Use Custom IBM Token' }),
      token: () => within(dialog).getByLabelText<HTMLInputElement>(/^Custom IBM Token/),
    };
  }

  it("enables the token only while 'Use Custom IBM Token' is ticked", () => {
    const { dialog, tick, token } = openToken();
    expect(tick.checked).toBe(false);
    expect(token().disabled).toBe(true);
    fireEvent.click(tick);
    expect(token().disabled).toBe(false);
    expect(messagesIn(dialog)).toEqual(['Custom IBM token is required']);
    fireEvent.change(token(), { target: { value: 'not a token!' } });
    expect(messagesIn(dialog)).toEqual(['Token can only contain letters, numbers, hyphens, and underscores']);
    fireEvent.change(token(), { target: { value: 'abc_DEF-123' } });
    expect(messagesIn(dialog)).toEqual([]);
    fireEvent.click(tick);
    expect(token().disabled).toBe(true);
    expect(token().value).toBe('abc_DEF-123');
  });

  it('does not save the token once the tick is removed (hidden values are pruned)', () => {
    const onSave = vi.fn();
    const { dialog, tick, token } = openToken(onSave);
    fireEvent.click(tick);
    fireEvent.change(token(), { target: { value: 'secret_token' } });
    fireEvent.click(tick);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(onSave).toHaveBeenCalledTimes(1);
    const saved = onSave.mock.calls[0]![0] as AppData;
    expect(saved.model_configurations?.quantum_device).toEqual({
      use_quantum_sim: true,
      sim_quantum_device: 'aer_simulator_statevector',
      quantum_noise_model: 'None',
      check_custom_ibm_token: false,
    });
  });
});

describe('branch defaults and hidden values', () => {
  function modelType(problem: Problem) {
    const view = render(<Harness problem={problem} tab="model" />);
    const field = (name: string) => fieldOf(view.container, 'model', name);
    const choose = (label: string) => {
      const select = within(field('model_type')).getByRole<HTMLSelectElement>('combobox');
      const index = [...select.options].findIndex((o) => o.textContent === label);
      fireEvent.change(select, { target: { value: select.options[index]!.value } });
    };
    return { view, field, choose };
  }

  it('stock: Classical hides the quantum fields; Quantum brings the Quantum method back', () => {
    const { view, field, choose } = modelType(stock);
    choose('Classical');
    expect(selectedText(within(field('training_model_method')).getByRole('combobox'))).toBe('LSTM');
    expect(view.container.querySelector('[data-field="qubits"]')).toBeNull();
    expect(view.container.querySelector('[data-field="quantum_device"]')).toBeNull();
    choose('Quantum');
    expect(selectedText(within(field('training_model_method')).getByRole('combobox'))).toBe('Quantum');
    expect(within(field('qubits')).getByRole<HTMLInputElement>('spinbutton').value).toBe('5');
  });

  it('portfolio: Quantum sets optimizer VQE, Classical sets Classical', () => {
    const portfolio = registry.getProblem('portfolio-optimization');
    const { field, choose } = modelType(portfolio);
    choose('Classical');
    expect(selectedText(within(field('optimizer_type')).getByRole('combobox'))).toBe('Classical');
    choose('Quantum');
    expect(selectedText(within(field('optimizer_type')).getByRole('combobox'))).toBe('VQE');
  });

  it("fraud: Quantum sets 'Variational Quantum Classifier', Classical sets SVM", () => {
    const fraud = registry.getProblem('fraud-detection');
    const { field, choose } = modelType(fraud);
    choose('Classical');
    expect(selectedText(within(field('method')).getByRole('combobox'))).toBe('SVM');
    choose('Quantum');
    expect(selectedText(within(field('method')).getByRole('combobox'))).toBe(
      'Variational Quantum Classifier',
    );
  });

  it('saves without the values of hidden conditional fields', () => {
    const onSave = vi.fn();
    const view = render(<Harness problem={stock} tab="model" onSave={onSave} />);
    const select = within(fieldOf(view.container, 'model', 'model_type')).getByRole('combobox');
    fireEvent.change(select, { target: { value: '0' } }); // Classical
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    const saved = onSave.mock.calls[0]![0] as AppData;
    expect(saved.model_configurations).toEqual({
      model_type: 'Classical',
      training_model_method: 'LSTM',
      epochs: 50,
      learning_rate: 0.01,
      hidden_layers: 16,
    });
  });
});

describe('pipeline', () => {
  it("shows 'Pipeline is Read Only' and draws fixed nodes that cannot be connected", () => {
    const { appData, context } = createExampleAppData(stock);
    const { container } = render(<PipelineFlow problem={stock} appData={appData} context={context} />);
    expect(screen.getByText('Pipeline is Read Only')).toBeTruthy();
    const nodes = [...container.querySelectorAll('.react-flow__node')];
    expect(nodes.length).toBeGreaterThan(3);
    for (const node of nodes) {
      expect(node.classList.contains('draggable')).toBe(false);
      expect(node.classList.contains('selectable')).toBe(false);
    }
    for (const handle of container.querySelectorAll('.react-flow__handle')) {
      expect(handle.classList.contains('connectable')).toBe(false);
    }
    expect(screen.getByText('Run Stock Price Prediction')).toBeTruthy();
  });

  it("names the first incomplete step: 'Fill missing at 2' for the model configuration", () => {
    const onFill = vi.fn();
    const view = render(<Harness problem={stock} tab="model" withPipeline onFillMissing={onFill} />);
    expect(
      screen.queryByText('Please fill in the missing information to make the pipeline valid.'),
    ).toBeNull();
    fireEvent.change(within(fieldOf(view.container, 'model', 'epochs')).getByRole('spinbutton'), {
      target: { value: '' },
    });
    expect(
      screen.getByText('Please fill in the missing information to make the pipeline valid.'),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Fill missing at 2' }));
    expect(onFill).toHaveBeenCalledWith(1);
    expect(screen.getByTestId('pipeline-node-model_configurations:model-parameters').className).toContain(
      'is-invalid',
    );
  });

  it("names the dataset first: 'Fill missing at 1'", () => {
    const onFill = vi.fn();
    const { appData } = createExampleAppData(stock);
    const initial: AppData = { ...appData, dataset: {} };
    render(<Harness problem={stock} tab="model" initial={initial} withPipeline onFillMissing={onFill} />);
    fireEvent.click(screen.getByRole('button', { name: 'Fill missing at 1' }));
    expect(onFill).toHaveBeenCalledWith(0);
  });
});

it("shows 'Wrong configurations.' when a problem has no configuration", () => {
  const forms = stock.forms;
  const broken: Problem = {
    ...stock,
    forms: { ...forms, model_configurations: { ...forms.model_configurations, sections: [] } },
  };
  const { appData } = createExampleAppData(stock);
  render(<SchemaForm problem={broken} tab="model" appData={appData} onChange={() => undefined} />);
  expect(screen.getByText('Wrong configurations.')).toBeTruthy();
});
