// Types of the schema files (schemas/) as the engine sees them, and of the engine's results.
// The files themselves are checked by schemas/meta/*.schema.json; these types are the engine's
// reading of them, deliberately loose where the JSON Schema vocabulary is open.
import type { MriCheckRule } from './mri-image-check';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
/** A plain JSON Schema object (any keywords). */
export type JsonSchema = { [keyword: string]: unknown };

/** The app_data objects that carry a form, in tab order. */
export type FormKey = 'dataset' | 'preprocess' | 'model_configurations';
export const FORM_KEYS: readonly FormKey[] = ['dataset', 'preprocess', 'model_configurations'];

/** Workspace tabs that carry forms (Pipeline and Outputs carry none). */
export type TabId = 'dataset' | 'model';

/** The closed list of field kinds (x-field.kind). */
export type FieldKind =
  | 'select'
  | 'input'
  | 'splitter'
  | 'columnChecklist'
  | 'radio'
  | 'toggle'
  | 'text'
  | 'devicePicker'
  | 'datasetSource'
  | 'file'
  | 'hidden';

export interface XField {
  kind: FieldKind;
  /** Overrides the default widget name of the kind. */
  widget?: string;
  /** Display labels, parallel to `enum`. */
  labels?: string[];
  /** Enum values shown but not selectable, each with the reason (shown, and the error if chosen). */
  disabled?: Record<string, string>;
  /** `columns`: the options are the dataset's visible columns. */
  options?: 'columns';
  columnSelector?: boolean;
  selectorLabel?: string;
  helplink?: string;
  placeholder?: string;
  step?: number;
  accept?: string;
}

export interface XDefault {
  minOf: Array<number | { context: 'rowCount' }>;
}

export type ErrorMessageMap = { required?: Record<string, string> } & { [keyword: string]: unknown };

/** The schema of one field: a subset of JSON Schema plus x-field, x-default, x-minimum, errorMessage. */
export interface FieldSchema {
  title?: string;
  description?: string;
  type?: string | string[];
  enum?: JsonValue[];
  const?: JsonValue;
  default?: JsonValue;
  properties?: Record<string, FieldSchema>;
  required?: string[];
  items?: FieldSchema;
  allOf?: Array<Condition | FieldSchema>;
  errorMessage?: ErrorMessageMap;
  'x-field'?: XField;
  'x-default'?: XDefault;
  [keyword: string]: unknown;
}

/** What a condition tests of one field: its value, or (an object field) the fields inside it. */
export interface ConditionRule {
  const?: JsonValue;
  enum?: JsonValue[];
  properties?: Record<string, ConditionRule>;
  required?: string[];
}

export interface ConditionTest {
  properties: Record<string, ConditionRule>;
  required: string[];
}

export interface Branch {
  properties?: Record<string, FieldSchema>;
  required?: string[];
  errorMessage?: ErrorMessageMap;
}

export interface Condition {
  if: ConditionTest;
  then: Branch;
  else?: Branch;
  $comment?: string;
}

/** The schema of one app_data object (dataset, preprocess, model_configurations). */
export interface ObjectSchema {
  type?: 'object' | string | string[];
  properties?: Record<string, FieldSchema>;
  required?: string[];
  allOf?: Array<Condition | FieldSchema>;
  errorMessage?: ErrorMessageMap;
  [keyword: string]: unknown;
}

export interface SectionDef {
  id: string;
  heading: string;
  description?: string;
  /** Dataset tab: 0 = Upload Data step, 1 = Preprocess Data step. */
  wizardStep?: number;
  fields: string[];
}

export interface FormDef {
  schema: ObjectSchema;
  sections: SectionDef[];
}

export type ContextKey = 'applicationId' | 'userId';
export type TransformName = 'lowercase' | 'uppercase' | 'stripCarriageReturns' | 'toNumber' | 'toString';

/** One declarative mapping rule: `to` gets a value from app_data (`from`), the context or a constant. */
export interface MappingEntry {
  to: string;
  /** JSON pointer into app_data; a list means "the first one present". */
  from?: string | string[];
  context?: ContextKey;
  const?: JsonValue;
  transform?: TransformName;
  /** Used when the source is absent; without it an absent source omits the key. */
  default?: JsonValue;
  /** The entry applies only when the app_data value at `pointer` equals `equals`. */
  when?: { pointer: string; equals: JsonValue };
  $comment?: string;
}

export interface JobRequestDef {
  method: 'POST' | 'PUT';
  /** Path template; {name} is filled from `params`, then from the context (userId, applicationId). */
  path: string;
  params?: MappingEntry[];
  query?: MappingEntry[];
  /** Queries the specification's client sends instead, accepted as the mapped one while `when` holds. */
  specQueries?: {
    when: { pointer: string; equals: JsonValue };
    query: Record<string, string | number | boolean>;
    $comment?: string;
  }[];
}

/** Which files an upload accepts, and its messages (type, size, missing, valid, ...). */
export interface FileRule {
  /** Lower-case extensions without the dot; "nii.gz" matches "scan.nii.gz". */
  extensions: string[];
  maxBytes?: number;
  messages?: Record<string, string>;
}

export interface SampleDataset {
  id: string;
  label: string;
  file: string;
}

export interface ExampleDef {
  appName: string;
  /** What the example does and on which data (the gallery shows it; default: the problem's description). */
  description?: string;
  /** Shown in the example gallery (default true). */
  gallery?: boolean;
  context?: EngineContext;
  appData: AppData;
  /** The landing page's run: app_data values by JSON pointer replacing the example's (they win over the caps). */
  landingSettings?: Record<string, unknown>;
}

/** Where a mapping entry is written: its pointer in the problem file, and the fragment entry it came from. */
export interface MappingOrigin {
  /** e.g. "/job/body/13" (for a spliced fragment: the $ref item). */
  pointer: string;
  /** e.g. "defs.json#/$defs/devicePickerMapping/0" when the entry comes from a shared fragment. */
  via?: string;
}

/**
 * A problem file as the engine sees it: shared forms, mapping fragments and messages resolved
 * (the file itself may write them as {"$ref": "defs.json#/$defs/..."} and {"$message": key}).
 */
export interface ProblemFile {
  id: string;
  name: string;
  category: string;
  listed: boolean;
  order?: number;
  workspace: 'development' | 'developmentbio';
  description: string;
  useCases: string[];
  dataset: { kinds: string[]; upload?: FileRule; samples: SampleDataset[] };
  predict?: {
    models: string[];
    /** Each model choice answers with the application's latest Completed training of this kind. */
    modelKinds: Record<string, 'classical' | 'quantum'>;
    /** The meta-schema requires its largest size and the refusals the server words from it. */
    image: FileRule & {
      maxBytes: number;
      messages: Record<string, string> & { missing: string; size: string };
    };
    /** The MRI look of a PNG or JPEG (mri-image-check.ts). */
    mriCheck?: MriCheckRule;
    messages: Record<string, string> & { noModel: string; modelRequired: string };
  };
  inference?: {
    /** The meta-schema requires the refusal of a request without a file: missing. */
    file: FileRule & { messages: Record<string, string> & { missing: string } };
    messages: Record<string, string> & { noFeature: string };
  };
  forms: { dataset: FormDef; preprocess?: FormDef; model_configurations: FormDef };
  job: {
    request: JobRequestDef;
    body: MappingEntry[];
    bodySchema: JsonSchema;
    /**
     * Optional: what the worker gets beside the spec's body (the envelope's extension), mapped from
     * app_data like the body: normalization, missing_values, target_column, quantum_noise_model
     * (JOB_EXTENSION_KEYS).
     */
    extension?: MappingEntry[];
  };
  outputs: string[];
  example: ExampleDef;
}

export interface OutputDefinition {
  name: string;
  label: string;
  description: string;
  field: 'img' | 'input';
  subType: string;
}

export interface Category {
  id: string;
  name: string;
  label: string;
  order?: number;
}

export interface TabDef {
  id: TabId | 'pipeline' | 'outputs';
  label: string;
  index: number;
  step?: number;
  forms?: FormKey[];
}

export interface PlatformConfig {
  hiddenColumns: string[];
  tabs: TabDef[];
  messages: {
    fieldRequired: string;
    pipelineInvalid: string;
    fillMissingAt: string;
    pipelineBlocked: string;
    pipelineReadOnly: string;
    wrongConfigurations: string;
    /** A selected column the dataset does not have ({column}). */
    notAColumn: string;
    /** Field messages problem files refer to with {"$message": key}, and the app's shared texts. */
    [key: string]: string;
  };
  limits?: { previewRows?: number; csvSeparator?: string };
}

/**
 * A problem as the registry hands it out: the file with every shared-definition $ref inlined,
 * plus what it refers to (its category, output definitions, platform constants).
 */
export interface Problem extends ProblemFile {
  /** Path of the source file relative to the schemas directory. */
  source: string;
  categoryInfo: Category;
  outputDefinitions: OutputDefinition[];
  platform: PlatformConfig;
  /** Form keys this problem declares, in tab order. */
  formKeys: FormKey[];
  /** Where each entry of job.body, job.request.params and job.request.query is written. */
  mappingOrigins: {
    body: MappingOrigin[];
    params: MappingOrigin[];
    query: MappingOrigin[];
    extension: MappingOrigin[];
  };
}

/**
 * Values the engine needs besides app_data: the dataset's row count and columns (validation limits,
 * defaults, column options) and the ids the job body carries.
 */
export interface EngineContext {
  rowCount?: number;
  columns?: string[];
  applicationId?: number | string;
  userId?: number | string;
}

/** app_data as stored on an application (see src/engine/README.md). */
export interface AppData {
  dataset?: Record<string, unknown>;
  preprocess?: Record<string, unknown>;
  model_configurations?: Record<string, unknown>;
  outputs?: OutputDefinition[];
  [key: string]: unknown;
}

export interface FieldError {
  /** JSON pointer into app_data, e.g. "/model_configurations/epochs". */
  path: string;
  /** The field name (last segment of the path). */
  field: string;
  /** The field's label (title), when the schema declares one. */
  label?: string;
  /** The message, word for word from the schema files. */
  message: string;
  /** The JSON Schema keyword that failed (required, minimum, x-minimum, ...). */
  keyword: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: FieldError[];
}

/** One finding of the schema checker: which file, where in it, and why. */
export interface SchemaIssue {
  file: string;
  pointer: string;
  reason: string;
}
