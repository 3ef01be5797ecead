// Widgets and fields by the names the engine's uiSchema uses (ui:widget / ui:field; see
// DEFAULT_WIDGETS in src/engine/forms.ts and x-field.widget in the schema files). A schema that
// names a new widget needs only an entry here (or in SchemaForm's `widgets` prop).

import type { RegistryFieldsType, RegistryWidgetsType } from '@rjsf/utils';

import { QuantumDevicePickerField } from './fields/quantum-device-picker-field';
import { SplitterField } from './fields/splitter-field';
import { TypedNumberField } from './fields/typed-number-field';
import { CheckboxWidget } from './widgets/checkbox-widget';
import { ColumnChecklistWidget } from './widgets/column-checklist-widget';
import { CustomIbmTokenWidget } from './widgets/custom-ibm-token-widget';
import { DatasetSourceWidget, MatFileWidget } from './widgets/dataset-source-widget';
import { HiddenWidget } from './widgets/hidden-widget';
import { NumberInputWidget } from './widgets/number-input-widget';
import { RadioColumnWidget, RadioWidget } from './widgets/radio-widget';
import { SelectWidget } from './widgets/select-widget';
import { TextWidget } from './widgets/text-widget';

export const RENDERER_WIDGETS: RegistryWidgetsType = {
  select: SelectWidget,
  numberInput: NumberInputWidget,
  columnChecklist: ColumnChecklistWidget,
  radio: RadioWidget,
  radioColumn: RadioColumnWidget,
  checkbox: CheckboxWidget,
  text: TextWidget,
  customIbmToken: CustomIbmTokenWidget,
  datasetSource: DatasetSourceWidget,
  matFileUpload: MatFileWidget,
  file: MatFileWidget,
  hidden: HiddenWidget,
};

export const RENDERER_FIELDS: RegistryFieldsType = {
  splitter: SplitterField,
  quantumDevicePicker: QuantumDevicePickerField,
  // rjsf's own field for number and integer schemas, replaced (see typed-number-field.tsx)
  NumberField: TypedNumberField,
};
