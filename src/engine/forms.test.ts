// Sections for the renderer: JSON Schema + uiSchema per section, field kinds, hidden columns.

import { describe, expect, it } from 'vitest';

import { loadRegistry } from './node/load-schemas';
import {
  createExampleAppData,
  getFormState,
  getTabSections,
  setFieldValue,
  visibleColumns,
  validateAppData,
} from './index';

const registry = loadRegistry();
const stock = registry.getProblem('stock-price-prediction');
const fraud = registry.getProblem('fraud-detection');
const brain = registry.getProblem('brain-tumor');

describe('sections', () => {
  it('stock dataset tab: Upload Data, Data Features, Data Preprocess [Advanced] with their kinds and widgets', () => {
    const ex = createExampleAppData(stock);
    const sections = getTabSections(stock, 'dataset', ex.appData, ex.context);
    expect(sections.map((s) => [s.id, s.heading, s.form, s.wizardStep])).toEqual([
      ['upload-data', 'Upload Data', 'dataset', 0],
      ['data-features', 'Data Features', 'preprocess', 1],
      ['data-preprocess-advanced', 'Data Preprocess [Advanced]', 'preprocess', 1],
    ]);
    const features = sections[1]!;
    expect(features.fields.map((f) => [f.name, f.kind, f.widget, f.required])).toEqual([
      ['training_features', 'columnChecklist', 'columnChecklist', true],
      ['prediction_features', 'columnChecklist', 'columnChecklist', true],
      ['splitter', 'splitter', 'splitter', true],
      ['train_test_split', 'select', 'select', true],
    ]);
    expect(features.uiSchema).toMatchObject({
      'ui:order': ['training_features', 'prediction_features', 'splitter', 'train_test_split'],
      training_features: { 'ui:widget': 'columnChecklist', 'ui:options': { kind: 'columnChecklist' } },
      splitter: { 'ui:field': 'splitter', from_index: { 'ui:widget': 'numberInput' } },
      train_test_split: { 'ui:widget': 'select', 'ui:enumNames': ['50%', '60%', '70%', '80%'] },
    });
    expect(sections[2]!.fields.map((f) => [f.name, f.kind, f.widget])).toEqual([
      ['normalization', 'radio', 'radio'],
      ['missing_values', 'select', 'select'],
    ]);
  });

  it('hidden columns are filtered from column options (case-insensitive, carriage returns ignored)', () => {
    const columns = ['Date', 'Ticker', 'ID', 'Open', 'Close\r', 'timestamp', 'Volume'];
    expect(visibleColumns(columns, stock.platform)).toEqual(['Open', 'Close\r', 'Volume']);
    const sections = getTabSections(stock, 'dataset', createExampleAppData(stock).appData, { columns });
    const features = sections.find((s) => s.id === 'data-features')!;
    expect(features.fields[0]!.options).toEqual([
      { value: 'Open', label: 'Open' },
      { value: 'Close\r', label: 'Close' },
      { value: 'Volume', label: 'Volume' },
    ]);
    expect(features.schema).toMatchObject({
      properties: {
        training_features: { type: 'array', items: { type: 'string', enum: ['Open', 'Close\r', 'Volume'] } },
      },
    });
  });

  it('radio with a column selector (fraud target column) and without (normalization)', () => {
    const sections = getTabSections(fraud, 'dataset', createExampleAppData(fraud).appData, {
      columns: ['id', 'V1', 'Class'],
    });
    const column = sections.flatMap((s) => s.fields).find((f) => f.name === 'column')!;
    expect(column).toMatchObject({ kind: 'radio', widget: 'radioColumn', columnSelector: true });
    expect(column.options?.map((o) => o.value)).toEqual(['V1', 'Class']);
    const norm = sections.flatMap((s) => s.fields).find((f) => f.name === 'normalization')!;
    expect(norm).toMatchObject({ kind: 'radio', widget: 'radio' });
    expect(norm.options).toEqual([
      { value: '[0,1]', label: 'To [0, 1]' },
      { value: '[-1,1]', label: 'To [-1, 1]' },
    ]);
    // fraud's dataset form carries train_test_split, shown in the preprocess step
    const split = sections.find((s) => s.id === 'data-split')!;
    expect(split).toMatchObject({ form: 'dataset', wizardStep: 1 });
    expect(split.fields[0]!.options?.map((o) => o.value)).toEqual([0.3, 0.5, 0.6, 0.7, 0.8]);
  });

  it('section schemas are resolved: no conditions, no engine keywords, $data limits made concrete', () => {
    const ex = createExampleAppData(stock);
    const sections = getTabSections(stock, 'dataset', ex.appData, { rowCount: 250 });
    const splitter = sections.find((s) => s.id === 'data-features')!.schema.properties as Record<
      string,
      unknown
    >;
    expect(splitter.splitter).toEqual({
      title: 'Splitter',
      description: 'Rows of the dataset used for training and testing.',
      type: 'object',
      additionalProperties: false,
      properties: {
        from_index: {
          title: 'From Index',
          type: 'number',
          multipleOf: 1,
          default: 1,
          minimum: 1,
          maximum: 250,
        },
        to_index: { title: 'To Index', type: 'number', multipleOf: 1, minimum: 1, maximum: 250 },
      },
      required: ['from_index', 'to_index'],
    });
    const text = JSON.stringify(getTabSections(stock, 'model', ex.appData).map((s) => s.schema));
    for (const word of ['"if"', '"then"', 'x-field', 'errorMessage', '$data', 'allOf'])
      expect(text).not.toContain(word);
  });

  it('model tab: the method options follow the model type; quantum sections hide for Classical', () => {
    const ex = createExampleAppData(stock);
    const quantum = getTabSections(stock, 'model', ex.appData);
    const method = quantum[0]!.fields.find((f) => f.name === 'training_model_method')!;
    expect(method.options?.map((o) => o.value)).toEqual(['Quantum']);
    const classicalData = setFieldValue(stock, ex.appData, '/model_configurations/model_type', 'Classical');
    const classical = getTabSections(stock, 'model', classicalData);
    expect(classical[0]!.fields[1]!.options?.map((o) => o.value)).toEqual(['LSTM', 'GRU', 'RNN']);
    expect(classical.find((s) => s.id === 'quantum-device')!.visible).toBe(false);
    expect(quantum.find((s) => s.id === 'quantum-device')!.fields[0]).toMatchObject({
      kind: 'devicePicker',
      widget: 'quantumDevicePicker',
    });
  });

  it('brain tumor: training file and range in the dataset tab, quantum parameters only for quantum', () => {
    const ex = createExampleAppData(brain);
    const dataset = getTabSections(brain, 'dataset', ex.appData, ex.context);
    expect(dataset.map((s) => s.id)).toEqual(['train-brain-tumor']);
    expect(dataset[0]!.fields.map((f) => [f.name, f.widget])).toEqual([
      ['file', 'fileUpload'],
      ['training_range', 'splitter'],
      ['split', 'select'],
    ]);
    const model = getTabSections(brain, 'model', ex.appData);
    expect(model.map((s) => [s.heading, s.visible])).toEqual([
      ['Model Type', true],
      ['Model Parameters', true],
      ['Quantum Parameters', false],
    ]);
    const patch = getTabSections(
      brain,
      'model',
      setFieldValue(brain, ex.appData, '/model_configurations/modelType', 'quantum'),
    )[2]!.fields.find((f) => f.name === 'patchSize')!;
    expect(patch.options).toEqual([
      { value: 2, label: '2x2' },
      { value: 3, label: '3x3' },
    ]);
  });

  it('field views carry their errors; getFormState bundles everything', () => {
    const ex = createExampleAppData(stock);
    const data = setFieldValue(stock, ex.appData, '/model_configurations/epochs', 500);
    const state = getFormState(stock, data, ex.context);
    expect(state.valid).toBe(false);
    expect(state.errorsByPath).toEqual({
      '/model_configurations/epochs': 'Epochs must be less than or equal to 100',
    });
    const epochs = state.sections.model.flatMap((s) => s.fields).find((f) => f.name === 'epochs')!;
    expect(epochs.errors).toEqual(['Epochs must be less than or equal to 100']);
    expect(state.pipeline.fillMissing?.label).toBe('Fill missing at 2');
    expect(validateAppData(stock, data, ex.context).errors).toHaveLength(1);
  });
});

describe('object fields', () => {
  it('the device picker lists every sub-field, inactive ones with active: false and their options', () => {
    const ex = createExampleAppData(stock);
    const picker = getTabSections(stock, 'model', ex.appData).find((s) => s.id === 'quantum-device')!
      .fields[0]!;
    expect(picker.subfields?.map((f) => [f.name, f.active, f.required, f.widget])).toEqual([
      ['use_quantum_sim', true, true, 'toggle'],
      ['check_custom_ibm_token', true, false, 'toggle'],
      ['sim_quantum_device', true, true, 'select'],
      ['quantum_noise_model', true, false, 'select'],
      ['act_quantum_device', false, false, 'select'],
      ['custom_ibm_token', false, false, 'customIbmToken'],
    ]);
    expect(picker.subfields?.find((f) => f.name === 'act_quantum_device')!.options?.length).toBeGreaterThan(
      0,
    );
    expect(
      picker.subfields?.find((f) => f.name === 'sim_quantum_device')!.options?.map((o) => o.value),
    ).toEqual(['aer_simulator_statevector', 'statevector_simulator', 'qasm_simulator']);
  });
});

describe('options a condition disables', () => {
  it('ADAM is shown disabled with its reason while the device picker is on a real device', () => {
    const reason = registry.platform.messages.adamNeedsSimulation;
    const optimizerUi = (data: ReturnType<typeof createExampleAppData>['appData']) =>
      getTabSections(fraud, 'model', data).find((s) => s.uiSchema.optimizer_algorithm)!.uiSchema
        .optimizer_algorithm as { 'ui:options': Record<string, unknown> };
    const simulator = createExampleAppData(fraud).appData;
    expect(optimizerUi(simulator)['ui:options'].disabledOptions).toBeUndefined();
    const device = setFieldValue(
      fraud,
      simulator,
      '/model_configurations/quantum_device/use_quantum_sim',
      false,
    );
    expect(optimizerUi(device)['ui:options'].disabledOptions).toEqual({ ADAM: reason });
  });
});
