// The wire shapes of applications, categories, outputs and examples: each is the route's reply
// schema, so it types the handler and documents the call (src/generated/api.ts comes from them).
import { MAX_ID } from '../platform/id-schemas';

export const userIdSchema = { type: 'integer', minimum: 1, maximum: MAX_ID } as const;

/** Any JSON object (app_data): the schema engine, not the route, judges its contents. */
export const appDataSchema = {
  type: 'object',
  additionalProperties: true,
  description: "The application's data (dataset, preprocess, model_configurations, outputs)",
} as const;

const problemRef = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'workspace'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    workspace: { type: 'string', description: "The workspace route: 'development' or 'developmentbio'" },
  },
} as const;

const categoryRef = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name'],
  properties: { id: { type: 'string' }, name: { type: 'string' } },
} as const;

const summaryProperties = {
  id: { type: 'integer' },
  app_name: { type: 'string' },
  app_problem_id: { type: 'string' },
  app_problem: problemRef,
  category: categoryRef,
  user_id: { type: 'integer' },
  status: { type: 'string' },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
} as const;

const SUMMARY_REQUIRED = [
  'id',
  'app_name',
  'app_problem_id',
  'app_problem',
  'category',
  'user_id',
  'status',
  'created_at',
  'updated_at',
] as const;

export const applicationSummarySchema = {
  type: 'object',
  additionalProperties: false,
  required: SUMMARY_REQUIRED,
  properties: summaryProperties,
} as const;

export const applicationDetailSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...SUMMARY_REQUIRED, 'app_data'],
  properties: { ...summaryProperties, app_data: appDataSchema },
} as const;

export const createdApplicationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'app_name', 'app_problem', 'app_problem_id'],
  properties: {
    id: { type: 'integer' },
    app_name: { type: 'string' },
    app_problem: { type: 'string', description: "The problem's name" },
    app_problem_id: { type: 'string' },
  },
} as const;

export const outputSummarySchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'name',
    'status',
    'created_at',
    'completed_at',
    'application_id',
    'trained_model_type',
    'result_type',
    'execution_time',
  ],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string', description: "'{app_name} #{id}'" },
    status: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    completed_at: { type: ['string', 'null'], format: 'date-time' },
    application_id: { type: 'integer' },
    trained_model_type: {
      type: ['string', 'null'],
      description: 'The model the run trains, as the result or the body names it (LSTM, SVM, VQE, ...)',
    },
    result_type: {
      type: ['string', 'null'],
      enum: ['Training', 'Prediction', null],
      description:
        "'Training' or 'Prediction' for a problem that predicts (its file has a predict block); null for the others",
    },
    execution_time: { type: ['number', 'null'], description: 'Seconds from running to the final status' },
  },
} as const;

export const categorySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'label', 'app_problems'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    label: { type: 'string' },
    app_problems: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'workspace', 'description', 'useCases'],
        properties: {
          ...problemRef.properties,
          description: { type: 'string' },
          useCases: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;

export const exampleSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'problem_id',
    'problem_name',
    'category',
    'workspace',
    'app_name',
    'description',
    'app_data',
    'dataset',
  ],
  properties: {
    problem_id: { type: 'string' },
    problem_name: { type: 'string' },
    category: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'name', 'label'],
      properties: { id: { type: 'string' }, name: { type: 'string' }, label: { type: 'string' } },
    },
    workspace: { type: 'string' },
    app_name: { type: 'string' },
    description: { type: 'string' },
    app_data: appDataSchema,
    dataset: {
      type: 'object',
      additionalProperties: false,
      required: ['label', 'file'],
      properties: {
        label: { type: 'string' },
        file: { type: 'string', description: 'The sample file, e.g. apple_google_stock.csv' },
      },
    },
  },
} as const;
