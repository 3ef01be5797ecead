// The noise what-if's backend choice (issue #12 "Noise what-if"): what the caller asks for, checked against
// the schema's own lists, and the one place that rewrites a finished output's job body, extension and
// app_data snapshot for another backend. Everything else of the run (body, seed, dataset, split) is kept.

import type { JobExtensionKey, Problem } from '../../src/engine';

/** The request's `backend`: the ideal simulator, a noise model, or a real device. */
export type WhatIfBackend = 'ideal' | { noise_model: string } | { device: string };

/** The names a what-if may choose: the schema's noise models (without 'None') and real devices. */
export interface BackendNames {
  noiseModels: readonly string[];
  devices: readonly string[];
}

/** The simulator a what-if uses when the output ran on a device: the exact one. */
export const IDEAL_SIMULATOR = 'aer_simulator_statevector';
const NO_NOISE = 'None';
const NOISE_KEY: JobExtensionKey = 'quantum_noise_model';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The enum of the first property named `key` anywhere in a form schema (inlined defs), else []. */
function enumNamed(node: unknown, key: string): string[] {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = enumNamed(item, key);
      if (found.length) return found;
    }
    return [];
  }
  if (!isObject(node)) return [];
  const own = isObject(node.properties) ? node.properties[key] : undefined;
  if (isObject(own) && Array.isArray(own.enum))
    return own.enum.filter((v): v is string => typeof v === 'string');
  for (const value of Object.values(node)) {
    const found = enumNamed(value, key);
    if (found.length) return found;
  }
  return [];
}

/**
 * The names the problem's own device picker offers (its forms, defs.json `noiseModel` and `realDevice`
 * inlined): the schema stays the rule of what a job may name.
 */
export function backendNames(problem: Pick<Problem, 'forms'>): BackendNames {
  return {
    noiseModels: enumNamed(problem.forms, 'quantum_noise_model').filter((name) => name !== NO_NOISE),
    devices: enumNamed(problem.forms, 'act_quantum_device'),
  };
}

export type ParsedBackend =
  { ok: true; backend: WhatIfBackend; label: string } | { ok: false; message: string };

/** The request's backend checked: 'ideal', {noise_model} of the schema's list, or {device} of its list. */
export function parseBackend(value: unknown, names: BackendNames): ParsedBackend {
  const choices = `'ideal', {"noise_model": one of ${names.noiseModels.join(', ')}} or {"device": one of ${names.devices.join(', ')}}`;
  if (value === 'ideal') return { ok: true, backend: 'ideal', label: 'ideal simulator' };
  if (isObject(value) && Object.keys(value).length === 1) {
    if (typeof value.noise_model === 'string') {
      const name = value.noise_model;
      if (!names.noiseModels.includes(name)) {
        return { ok: false, message: `Unknown noise model '${name}': choose ${choices}.` };
      }
      return { ok: true, backend: { noise_model: name }, label: name };
    }
    if (typeof value.device === 'string') {
      const name = value.device;
      if (!names.devices.includes(name)) {
        return { ok: false, message: `Unknown device '${name}': choose ${choices}.` };
      }
      return { ok: true, backend: { device: name }, label: name };
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
    appData && isObject(appData.model_configurations) ? appData.model_configurations : null;
  const picker =
    configurations && isObject(configurations.quantum_device) ? configurations.quantum_device : null;
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
