// Widgets and fields by the names the engine's uiSchema uses (ui:widget / ui:field; see
// DEFAULT_WIDGETS in src/engine/forms.ts and x-field.widget in the schema files). A schema that
// names a new widget needs only an entry here (or in SchemaForm's `widgets` prop).

import type { RegistryFieldsType, RegistryWidgetsType } from '@rjsf/utils';

import { hasFields, isPlainObject, widgetOf, type FieldSchema, type Problem } from '../engine';

import { QuantumDevicePickerField } from './fields/quantum-device-picker-field';
import { SplitterField } from './fields/splitter-field';
import { TypedNumberField } from './fields/typed-number-field';
import { ColumnChecklistWidget } from './widgets/column-checklist-widget';
import { CustomIbmTokenWidget } from './widgets/custom-ibm-token-widget';
import { DatasetSourceWidget, FileUploadWidget } from './widgets/dataset-source-widget';
import { HiddenWidget } from './widgets/hidden-widget';
import { NumberInputWidget } from './widgets/number-input-widget';
import { RadioColumnWidget, RadioWidget } from './widgets/radio-widget';
import { SelectWidget } from './widgets/select-widget';
import { TextWidget } from './widgets/text-widget';
import { ToggleWidget } from './widgets/toggle-widget';

export const RENDERER_WIDGETS: RegistryWidgetsType = {
  select: SelectWidget,
  numberInput: NumberInputWidget,
  columnChecklist: ColumnChecklistWidget,
  radio: RadioWidget,
  radioColumn: RadioColumnWidget,
  toggle: ToggleWidget,
  text: TextWidget,
  customIbmToken: CustomIbmTokenWidget,
  datasetSource: DatasetSourceWidget,
  fileUpload: FileUploadWidget,
  hidden: HiddenWidget,
};

export const RENDERER_FIELDS: RegistryFieldsType = {
  splitter: SplitterField,
  quantumDevicePicker: QuantumDevicePickerField,
  // rjsf's own field for number and integer schemas, replaced (see typed-number-field.tsx)
  NumberField: TypedNumberField,
};

/** The rjsf names a problem's forms use: ui:field for fields with sub-fields, ui:widget otherwise. */
export interface RendererNames {
  widgets: Set<string>;
  fields: Set<string>;
}

/**
 * Every widget and field name the problem's forms can ask for, read from its x-field entries the way
 * the engine turns them into a uiSchema (widgetOf), conditional branches included.
 */
export function rendererNamesOf(problem: Problem): RendererNames {
  const names: RendererNames = { widgets: new Set(), fields: new Set() };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isPlainObject(node)) return;
    const xField = node['x-field'];
    if (isPlainObject(xField)) {
      const schema = node as FieldSchema;
      (hasFields(schema) ? names.fields : names.widgets).add(widgetOf(schema['x-field']));
    }
    Object.values(node).forEach(visit);
  };
  visit(problem.forms);
  return names;
}

/**
 * Throws, naming the problem's file and each name, when a form asks for a widget or field no
 * renderer is registered for. rjsf would otherwise draw an unknown ui:field as a plain object
 * field and stop on an unknown ui:widget only when that field is first shown.
 */
export function assertRenderable(
  problem: Problem,
  widgets: RegistryWidgetsType = RENDERER_WIDGETS,
  fields: RegistryFieldsType = RENDERER_FIELDS,
): void {
  const { widgets: wanted, fields: wantedFields } = rendererNamesOf(problem);
  const missing = [
    ...[...wanted].filter((name) => !(name in widgets)).map((name) => `widget '${name}'`),
    ...[...wantedFields].filter((name) => !(name in fields)).map((name) => `field '${name}'`),
  ];
  if (missing.length > 0) {
    throw new Error(
      `${problem.source}: no renderer is registered for ${missing.join(', ')} (add it to src/renderers/renderer-registry.ts)`,
    );
  }
}
