// What the renderer needs: per tab, the sections of the problem's forms, each as a JSON Schema
// (conditions already resolved against the current values, so @rjsf never evaluates if/then)
// plus a uiSchema naming the widgets, and a flat list of field views.

import { hasFields, resolveFields, type ResolvedField } from './conditions';
import { resolveDataPointer } from './ajv';
import { deepClone, isPlainObject } from './json';
import { joinPointer } from './pointer';
import type {
  AppData,
  EngineContext,
  FieldError,
  FieldKind,
  FieldSchema,
  FormKey,
  JsonSchema,
  JsonValue,
  ObjectSchema,
  PlatformConfig,
  Problem,
  TabId,
  XField,
} from './types';

export type UiSchema = { [key: string]: unknown };

export interface FieldOption {
  value: JsonValue;
  label: string;
}

export interface FieldView {
  name: string;
  /** JSON pointer into app_data. */
  path: string;
  label: string;
  description?: string;
  kind: FieldKind;
  /** Widget (or, for object fields, rjsf field) name to render with. */
  widget: string;
  /** Top-level section fields are always active; sub-fields may not be (e.g. the real-device
   * select in simulator mode), so widgets can show them disabled with their options. */
  active: boolean;
  required: boolean;
  placeholder?: string;
  helplink?: string;
  selectorLabel?: string;
  columnSelector?: boolean;
  options?: FieldOption[];
  value: unknown;
  /** Messages for this field and its sub-fields, most basic first. */
  errors: string[];
  /** Object fields (splitter, device picker): every declared sub-field, active or not. */
  subfields?: FieldView[];
}

export interface SectionView {
  id: string;
  heading: string;
  description?: string;
  form: FormKey;
  /** JSON pointer of the form object in app_data, e.g. "/preprocess". */
  path: string;
  tab: TabId;
  wizardStep?: number;
  /** False when none of the section's fields is active (e.g. quantum settings of a classical model). */
  visible: boolean;
  fields: FieldView[];
  /** JSON Schema of the section's active fields (formData: the whole form object). */
  schema: JsonSchema;
  uiSchema: UiSchema;
}

/** Default widget of each field kind; x-field.widget overrides it. */
export const DEFAULT_WIDGETS: Record<FieldKind, string> = {
  select: 'select',
  input: 'numberInput',
  splitter: 'splitter',
  columnChecklist: 'columnChecklist',
  radio: 'radio',
  toggle: 'toggle',
  text: 'text',
  devicePicker: 'quantumDevicePicker',
  datasetSource: 'datasetSource',
  file: 'fileUpload',
  hidden: 'hidden',
};

export function widgetOf(xField: XField | undefined): string {
  if (!xField) return 'text';
  if (xField.widget) return xField.widget;
  if (xField.kind === 'radio' && xField.columnSelector) return 'radioColumn';
  return DEFAULT_WIDGETS[xField.kind];
}

/** Dataset columns without the hidden ones (id, date, ticker, ...), compared case-insensitively. */
export function visibleColumns(columns: readonly string[] | undefined, platform: PlatformConfig): string[] {
  const hidden = new Set(platform.hiddenColumns.map((c) => c.trim().toLowerCase()));
  return (columns ?? []).filter((c) => !hidden.has(c.replace(/\r/g, '').trim().toLowerCase()));
}

export function fieldOptions(
  schema: FieldSchema,
  context: EngineContext,
  platform: PlatformConfig,
): FieldOption[] | undefined {
  const xField = schema['x-field'];
  if (xField?.options === 'columns') {
    return visibleColumns(context.columns, platform).map((c) => ({ value: c, label: c.replace(/\r/g, '') }));
  }
  const values = schema.enum ?? schema.items?.enum;
  if (!Array.isArray(values)) return undefined;
  const allValues = schema.enum ?? [];
  return values.map((value) => {
    const i = allValues.findIndex((v) => v === value);
    const label = xField?.labels?.[i] ?? (value === null ? '' : String(value));
    return { value, label };
  });
}

const ENGINE_KEYWORDS = new Set(['x-field', 'x-default', 'x-minimum', 'errorMessage', '$comment', 'allOf']);
const LIMIT_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

interface RenderScope {
  context: EngineContext;
  platform: PlatformConfig;
  /** { app_data, context } so that $data pointers resolve as in validation. */
  root: unknown;
}

/** The field's schema for the renderer: engine keywords removed, $data limits made concrete. */
function renderSchema(
  schema: FieldSchema,
  value: unknown,
  instancePath: string,
  scope: RenderScope,
): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, v] of Object.entries(schema)) {
    if (ENGINE_KEYWORDS.has(key) || key === 'properties' || key === 'required' || key === 'items') continue;
    if (LIMIT_KEYWORDS.includes(key) && isPlainObject(v) && typeof v.$data === 'string') {
      const resolved = resolveDataPointer(v.$data, instancePath, scope.root);
      if (typeof resolved === 'number') out[key] = resolved;
      continue;
    }
    out[key] = deepClone(v);
  }
  if (schema.items) out.items = renderSchema(schema.items, undefined, instancePath + '/0', scope);
  if (schema['x-field']?.options === 'columns' && scope.context.columns) {
    const columns = visibleColumns(scope.context.columns, scope.platform);
    if (schema.type === 'array') out.items = { ...(out.items as JsonSchema), enum: columns };
    else out.enum = columns;
  }
  if (hasFields(schema)) {
    const active = resolveFields(schema, value).filter((f) => f.active);
    const properties: Record<string, JsonSchema> = {};
    for (const f of active) {
      const childValue = isPlainObject(value) ? value[f.name] : undefined;
      properties[f.name] = renderSchema(f.schema, childValue, joinPointer(instancePath, f.name), scope);
    }
    out.type = 'object';
    out.properties = properties;
    const required = active.filter((f) => f.required).map((f) => f.name);
    if (required.length > 0) out.required = required;
  }
  return out;
}

function renderUiSchema(schema: FieldSchema, value: unknown): UiSchema {
  const xField = schema['x-field'];
  const ui: UiSchema = {};
  const widget = widgetOf(xField);
  if (hasFields(schema)) ui['ui:field'] = widget;
  else ui['ui:widget'] = widget;
  if (xField?.placeholder) ui['ui:placeholder'] = xField.placeholder;
  if (xField?.labels) ui['ui:enumNames'] = [...xField.labels];
  const options: Record<string, unknown> = {};
  if (xField) {
    options.kind = xField.kind;
    for (const key of ['helplink', 'selectorLabel', 'columnSelector', 'step', 'accept'] as const) {
      if (xField[key] !== undefined) options[key] = xField[key];
    }
  }
  // Not "disabled": RJSF reads ui:options.disabled as "the whole field is disabled".
  if (xField?.disabled) options.disabledOptions = { ...xField.disabled };
  ui['ui:options'] = options;
  if (hasFields(schema)) {
    for (const f of resolveFields(schema, value)) {
      if (!f.active) continue;
      ui[f.name] = renderUiSchema(f.schema, isPlainObject(value) ? value[f.name] : undefined);
    }
  }
  return ui;
}

/**
 * The tab that shows a form. platform.json's `tabs[].forms` is the one list; the checker makes
 * sure every form is listed by exactly one dataset or model tab.
 */
export function tabOfForm(platform: PlatformConfig, form: FormKey): TabId | undefined {
  const tab = platform.tabs.find((t) => t.forms?.includes(form));
  return tab?.id === 'dataset' || tab?.id === 'model' ? tab.id : undefined;
}

export function formsOfTab(problem: Problem, tab: TabId): FormKey[] {
  return problem.formKeys.filter((f) => tabOfForm(problem.platform, f) === tab);
}

function fieldView(
  field: ResolvedField,
  path: string,
  value: unknown,
  errors: readonly FieldError[],
  scope: RenderScope,
): FieldView {
  const xField = field.schema['x-field'];
  const options = fieldOptions(field.schema, scope.context, scope.platform);
  const view: FieldView = {
    name: field.name,
    path,
    label: field.schema.title ?? field.name,
    ...(field.schema.description ? { description: field.schema.description } : {}),
    kind: xField?.kind ?? 'text',
    widget: widgetOf(xField),
    active: field.active,
    required: field.required,
    ...(xField?.placeholder ? { placeholder: xField.placeholder } : {}),
    ...(xField?.helplink ? { helplink: xField.helplink } : {}),
    ...(xField?.selectorLabel ? { selectorLabel: xField.selectorLabel } : {}),
    ...(xField?.columnSelector !== undefined ? { columnSelector: xField.columnSelector } : {}),
    ...(options ? { options } : {}),
    value,
    errors: errors.filter((e) => e.path === path || e.path.startsWith(path + '/')).map((e) => e.message),
  };
  if (hasFields(field.schema)) {
    view.subfields = resolveFields(field.schema, value).map((sub) =>
      fieldView(
        sub,
        joinPointer(path, sub.name),
        isPlainObject(value) ? value[sub.name] : undefined,
        errors,
        scope,
      ),
    );
  }
  return view;
}

/**
 * The sections of one tab, resolved against the current app_data. `errors` (from
 * validateAppData) are attached to the field views.
 */
export function getTabSections(
  problem: Problem,
  tab: TabId,
  appData: AppData,
  context: EngineContext = {},
  errors: readonly FieldError[] = [],
): SectionView[] {
  const out: SectionView[] = [];
  const scope: RenderScope = { context, platform: problem.platform, root: { app_data: appData, context } };
  for (const form of formsOfTab(problem, tab)) {
    const def = problem.forms[form]!;
    const formSchema: ObjectSchema = def.schema;
    const formValue = isPlainObject(appData[form]) ? (appData[form] as Record<string, unknown>) : {};
    const fields = resolveFields(formSchema, formValue);
    for (const section of def.sections) {
      const active = section.fields
        .map((name) => fields.find((f) => f.name === name))
        .filter((f): f is ResolvedField => !!f && f.active);
      const properties: Record<string, JsonSchema> = {};
      const uiSchema: UiSchema = { 'ui:order': active.map((f) => f.name) };
      for (const f of active) {
        properties[f.name] = renderSchema(
          f.schema,
          formValue[f.name],
          joinPointer('/app_data', form, f.name),
          scope,
        );
        uiSchema[f.name] = renderUiSchema(f.schema, formValue[f.name]);
      }
      const required = active.filter((f) => f.required).map((f) => f.name);
      out.push({
        id: section.id,
        heading: section.heading,
        ...(section.description ? { description: section.description } : {}),
        form,
        path: `/${form}`,
        tab,
        ...(section.wizardStep !== undefined ? { wizardStep: section.wizardStep } : {}),
        visible: active.length > 0,
        fields: active.map((f) =>
          fieldView(f, joinPointer('', form, f.name), formValue[f.name], errors, scope),
        ),
        schema: {
          type: 'object',
          title: section.heading,
          properties,
          ...(required.length > 0 ? { required } : {}),
        },
        uiSchema,
      });
    }
  }
  return out;
}
