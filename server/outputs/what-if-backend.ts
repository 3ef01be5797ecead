// The noise what-if's backend choice: what the caller asks for, checked against
// the schema's own lists, and the one place that rewrites a finished output's job body, extension and
// app_data snapshot for another backend. Everything else of the run (body, seed, dataset, split) is kept.

import {
  fieldOptions,
  isPlainObject,
  type FieldSchema,
  type JobExtensionKey,
  type Problem,
} from '../../src/engine';

/** The request's `backend`: the ideal simulator, a noise model, or a real device. */
export type WhatIfBackend = 'ideal' | { noise_model: string } | { device: string };

/** A backend a what-if may choose: its name (what a job carries) and its label (the schema's). */
export interface BackendChoice {
  name: string;
  label: string;
}

/** The backends a what-if may choose: the schema's noise models (without 'None') and real devices. */
export interface BackendNames {
  noiseModels: readonly BackendChoice[];
  devices: readonly BackendChoice[];
}

/** The simulator a what-if uses when the output ran on a device: the exact one. */
export const IDEAL_SIMULATOR = 'aer_simulator_statevector';
export const IDEAL_LABEL = 'Ideal simulator';
const NO_NOISE = 'None';
const NOISE_KEY: JobExtensionKey = 'quantum_noise_model';

/** The schema of the first property named `key` with an enum anywhere in a form schema (inlined defs). */
function fieldNamed(node: unknown, key: string): FieldSchema | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = fieldNamed(item, key);
      if (found) return found;
    }
    return undefined;
  }
  if (!isPlainObject(node)) return undefined;
  const own = isPlainObject(node.properties) ? node.properties[key] : undefined;
  if (isPlainObject(own) && Array.isArray(own.enum)) return own as FieldSchema;
  for (const value of Object.values(node)) {
    const found = fieldNamed(value, key);
    if (found) return found;
  }
  return undefined;
}

/** The field's options as the form shows them (the engine's labels: x-field.labels, else the value). */
function choicesOf(problem: Pick<Problem, 'forms' | 'platform'>, key: string): BackendChoice[] {
  const field = fieldNamed(problem.forms, key);
  const options = field ? (fieldOptions(field, {}, problem.platform) ?? []) : [];
  return options
    .filter((option): option is typeof option & { value: string } => typeof option.value === 'string')
    .map((option) => ({ name: option.value, label: option.label }));
}

/**
 * The backends the problem's own device picker offers (its forms, defs.json `noiseModel` and `realDevice`
 * inlined), labelled as the form labels them: the schema stays the rule of what a job may name.
 */
export function backendNames(problem: Pick<Problem, 'forms' | 'platform'>): BackendNames {
  return {
    noiseModels: choicesOf(problem, 'quantum_noise_model').filter((choice) => choice.name !== NO_NOISE),
    devices: choicesOf(problem, 'act_quantum_device'),
  };
}

/** The label of a backend: 'Ideal simulator' or its schema label (its name when the schema has none). */
export function backendLabel(backend: WhatIfBackend, names: BackendNames): string {
  if (backend === 'ideal') return IDEAL_LABEL;
  const [list, name] =
    'noise_model' in backend ? [names.noiseModels, backend.noise_model] : [names.devices, backend.device];
  return list.find((choice) => choice.name === name)?.label ?? name;
}

export type ParsedBackend =
  { ok: true; backend: WhatIfBackend; label: string } | { ok: false; message: string };

/** The request's backend checked: 'ideal', {noise_model} of the schema's list, or {device} of its list. */
export function parseBackend(value: unknown, names: BackendNames): ParsedBackend {
  const list = (choices: readonly BackendChoice[]) => choices.map((choice) => choice.name).join(', ');
  const choices = `'ideal', {"noise_model": one of ${list(names.noiseModels)}} or {"device": one of ${list(names.devices)}}`;
  const known = (backend: WhatIfBackend): ParsedBackend => ({
    ok: true,
    backend,
    label: backendLabel(backend, names),
  });
  if (value === 'ideal') return known('ideal');
  if (isPlainObject(value) && Object.keys(value).length === 1) {
    if (typeof value.noise_model === 'string') {
      const name = value.noise_model;
      if (!names.noiseModels.some((choice) => choice.name === name)) {
        return { ok: false, message: `Unknown noise model '${name}': choose ${choices}.` };
      }
      return known({ noise_model: name });
    }
    if (typeof value.device === 'string') {
      const name = value.device;
      if (!names.devices.some((choice) => choice.name === name)) {
        return { ok: false, message: `Unknown device '${name}': choose ${choices}.` };
      }
      return known({ device: name });
    }
  }
  return { ok: false, message: `Unknown backend: choose ${choices}.` };
}

/** Where an output ran, read from its body and extension (the same words parseBackend takes). */
export function backendOf(
  params: Record<string, unknown>,
  extension: Record<string, unknown>,
): WhatIfBackend {
  if (params.use_quantum_simulator === false && typeof params.quantum_device_backend === 'string') {
    return { device: params.quantum_device_backend };
  }
  const noise = extension[NOISE_KEY];
  return typeof noise === 'string' && noise !== NO_NOISE ? { noise_model: noise } : 'ideal';
}

export const sameBackend = (a: WhatIfBackend, b: WhatIfBackend) => JSON.stringify(a) === JSON.stringify(b);

export interface RunParts {
  params: Record<string, unknown>;
  extension: Record<string, unknown>;
  appData: Record<string, unknown> | null;
}

/**
 * The run's parts with only the backend changed: the body's use_quantum_simulator and
 * quantum_device_backend, the extension's quantum_noise_model, and the app_data snapshot's device picker
 * (so the output shows what ran). A simulator the output used is kept (the shot-based one stays
 * sampled); an output that ran on a device gets the exact simulator. The body's custom token is kept.
 */
export function withBackend(parts: RunParts, backend: WhatIfBackend): RunParts {
  const params = structuredClone(parts.params);
  const extension = structuredClone(parts.extension);
  const appData = parts.appData ? structuredClone(parts.appData) : null;
  const ranOnSimulator =
    params.use_quantum_simulator !== false && typeof params.quantum_device_backend === 'string';
  const simulator = ranOnSimulator ? String(params.quantum_device_backend) : IDEAL_SIMULATOR;
  const device = typeof backend === 'object' && 'device' in backend ? backend.device : null;
  const noise = typeof backend === 'object' && 'noise_model' in backend ? backend.noise_model : null;

  params.use_quantum_simulator = device === null;
  params.quantum_device_backend = device ?? simulator;
  extension[NOISE_KEY] = noise;

  const configurations =
    appData && isPlainObject(appData.model_configurations) ? appData.model_configurations : null;
  const picker =
    configurations && isPlainObject(configurations.quantum_device) ? configurations.quantum_device : null;
  if (picker) {
    picker.use_quantum_sim = device === null;
    if (device === null) {
      delete picker.act_quantum_device;
      picker.sim_quantum_device = simulator;
      picker.quantum_noise_model = noise ?? NO_NOISE;
    } else {
      delete picker.sim_quantum_device;
      delete picker.quantum_noise_model;
      picker.act_quantum_device = device;
    }
  }
  return { params, extension, appData };
}
