// Builds the JSON Schema of a problem's app_data from its forms: one object per form key
// (dataset, preprocess, model_configurations) plus the output definitions list.

import type { FormKey, JsonSchema, Problem } from './types';

export const OUTPUT_DEFINITION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    label: { type: 'string' },
    description: { type: 'string' },
    field: { enum: ['img', 'input'] },
    subType: { type: 'string' },
  },
  required: ['name'],
};

export function pascalCase(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((s) => s[0]!.toUpperCase() + s.slice(1))
    .join('');
}

/** The app_data schema of a problem (shared definitions inlined, conditions kept). */
export function buildAppDataSchema(problem: Problem): JsonSchema {
  const properties: Record<string, unknown> = {};
  for (const key of problem.formKeys) properties[key] = problem.forms[key as FormKey]!.schema;
  properties.outputs = { type: 'array', items: OUTPUT_DEFINITION_SCHEMA };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `${pascalCase(problem.id)}AppData`,
    description: `app_data of a ${problem.name} application.`,
    type: 'object',
    properties,
  };
}

/**
 * The schema the engine validates against: { app_data, context }. Limits that depend on the
 * dataset refer to the context with $data pointers such as {"$data": "/context/rowCount"}.
 */
export function buildValidationSchema(problem: Problem): JsonSchema {
  const { $schema: _s, title: _t, description: _d, ...appData } = buildAppDataSchema(problem);
  return {
    type: 'object',
    properties: {
      app_data: appData,
      context: {
        type: 'object',
        properties: {
          rowCount: { type: 'number' },
          columns: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    required: ['app_data'],
  };
}
