// app_data in the shapes the specification describes (workspace.md sections 3 and 5), accepted on save
// and stored in the shape the problem files declare. One function, so every path that stores app_data
// stores the same shape; a stored-shape app_data passes through unchanged.

import { declaredFieldNames, firstDeclaration } from './conditions';
import { deepClone, isPlainObject } from './json';
import { getPointer, hasPointer, setPointer } from './pointer';
import { TRANSFORMS } from './mapping';
import type { AppData, FieldSchema, ObjectSchema, Problem } from './types';

/**
 * Model configuration names the specification gives besides the declared one (section 3: "model_type
 * (also training_model_type or modelType)"); used only where the problem declares the target and not
 * the alias (brain tumor declares modelType itself).
 */
const MODEL_CONFIGURATION_ALIASES: Record<string, string> = {
  training_model_type: 'model_type',
  modelType: 'model_type',
};

/**
 * Brain tumor's model configuration in the specification carries the training range and the ids
 * (fromIndex, toIndex, userId, appId); the range is stored where the dataset form declares it, and
 * the ids come from the request (the path and the signed-in user), never from app_data.
 */
const RANGE_KEYS: Record<string, string> = { fromIndex: 'from_index', toIndex: 'to_index' };
const REQUEST_IDS = ['userId', 'appId'];

function fieldsOf(problem: Problem, key: string): { names: string[]; schema?: ObjectSchema | FieldSchema } {
  const form = problem.forms[key as keyof typeof problem.forms];
  return form ? { names: declaredFieldNames(form.schema), schema: form.schema } : { names: [] };
}

/** The spec's flat quantum device fields gathered into the declared quantum_device object. */
function nestDeviceFields(problem: Problem, config: Record<string, unknown>): void {
  const { names, schema } = fieldsOf(problem, 'model_configurations');
  if (!schema || !names.includes('quantum_device')) return;
  const device = firstDeclaration(schema, 'quantum_device');
  if (!device) return;
  const inner = declaredFieldNames(device);
  const flat = inner.filter((name) => name in config && !names.includes(name));
  const named = config.quantum_device;
  if (flat.length === 0 && (named === undefined || isPlainObject(named))) return;
  const nested: Record<string, unknown> = isPlainObject(named) ? { ...named } : {};
  for (const name of flat) {
    if (!(name in nested)) nested[name] = config[name];
    delete config[name];
  }
  // The spec's flat quantum_device is a device's name: the real device when not simulating.
  if (typeof named === 'string' && named !== '' && nested.use_quantum_sim === false) {
    nested.act_quantum_device ??= named;
  }
  config.quantum_device = nested;
}

function renameAliases(problem: Problem, config: Record<string, unknown>): void {
  const { names } = fieldsOf(problem, 'model_configurations');
  for (const [alias, target] of Object.entries(MODEL_CONFIGURATION_ALIASES)) {
    if (!(alias in config) || names.includes(alias) || !names.includes(target)) continue;
    if (!(target in config)) config[target] = config[alias];
    delete config[alias];
  }
}

function moveTrainingRange(problem: Problem, appData: AppData, config: Record<string, unknown>): void {
  const { names } = fieldsOf(problem, 'model_configurations');
  const datasetFields = fieldsOf(problem, 'dataset').names;
  for (const [key, target] of Object.entries(RANGE_KEYS)) {
    if (!(key in config) || names.includes(key) || !datasetFields.includes('training_range')) continue;
    if (!isPlainObject(appData.dataset)) appData.dataset = {};
    const pointer = `/dataset/training_range/${target}`;
    if (!hasPointer(appData, pointer) || getPointer(appData, pointer) === undefined) {
      if (!isPlainObject(getPointer(appData, '/dataset/training_range'))) {
        setPointer(appData, '/dataset/training_range', {});
      }
      setPointer(appData, pointer, config[key]);
    }
    delete config[key];
  }
  for (const key of REQUEST_IDS) if (key in config && !names.includes(key)) delete config[key];
}

/**
 * Carriage returns stripped from the lists the job mapping strips them from (the spec's payload rule:
 * feature and stock name lists), so the stored data and the job body carry the same names.
 */
function stripCarriageReturns(problem: Problem, appData: AppData): void {
  for (const entry of problem.job.body) {
    if (entry.transform !== 'stripCarriageReturns') continue;
    const pointers = Array.isArray(entry.from) ? entry.from : entry.from ? [entry.from] : [];
    for (const pointer of pointers) {
      if (!hasPointer(appData, pointer)) continue;
      const value = getPointer(appData, pointer);
      if (value !== undefined) setPointer(appData, pointer, TRANSFORMS.stripCarriageReturns(value));
    }
  }
}

/** app_data in the problem files' shape, from the spec's shapes or ours (a copy; the input is kept). */
export function normalizeAppData(problem: Problem, appData: AppData): AppData {
  if (!isPlainObject(appData)) return appData;
  const out = deepClone(appData);
  if (isPlainObject(out.model_configurations)) {
    const config = out.model_configurations;
    renameAliases(problem, config);
    nestDeviceFields(problem, config);
    moveTrainingRange(problem, out, config);
  }
  stripCarriageReturns(problem, out);
  return out;
}
