// React renderers of the schema engine: one generic form renderer (rjsf) with the project's
// widgets registered by name, the read-only pipeline diagram and the pipeline validity notice.
// Imports the engine, never the app.

import '@xyflow/react/dist/style.css';
import './theme.css';

export { SchemaForm, type SchemaFormProps } from './schema-form';
export { SectionForm, type SectionFormProps } from './section-form';
export { useEngineForm } from './use-engine-form';
export { PipelineFlow, toFlowElements, type PipelineFlowProps } from './pipeline-flow';
export { PipelineValidityNotice, type PipelineValidityNoticeProps } from './pipeline-notice';
export { RENDERER_WIDGETS, RENDERER_FIELDS } from './renderer-registry';
export { DEVICE_PICKER_FIELDS } from './fields/quantum-device-picker-field';
export { Modal } from './modal';
export { toErrorSchema } from './error-schema';
export { diffFormValues } from './form-diff';
export type { FieldChange, RealDeviceChoices, RealDeviceInfo, RendererFormContext } from './form-context';
