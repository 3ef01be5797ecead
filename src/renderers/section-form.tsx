import Form, { type IChangeEvent } from '@rjsf/core';
import type { RegistryFieldsType, RegistryWidgetsType, RJSFSchema, UiSchema } from '@rjsf/utils';
import { sectionFormValidator } from './form-validator';
import { memo, useCallback, useMemo } from 'react';

import type { EngineContext, FieldError, Problem, SectionView } from '../engine';
import { toErrorSchema } from './error-schema';
import {
  indexFieldViews,
  type FieldChange,
  type RealDeviceChoices,
  type RendererFormContext,
} from './form-context';
import { diffFormValues, pickFields } from './form-diff';
import { THEME_TEMPLATES } from './templates/templates';
import { useJsonMemo } from './use-json-memo';

// rjsf must not invent values: defaults are the engine's (fillDefaults, branch defaults).
const NO_DEFAULTS = {
  emptyObjectFields: 'skipDefaults',
  arrayMinItems: { populate: 'never' },
} as const;

export interface SectionFormProps {
  problem: Problem;
  section: SectionView;
  /** The section's values and the values of its form that no section draws (e.g. the dataset kind). */
  formValue: Record<string, unknown>;
  errors: readonly FieldError[];
  context: EngineContext;
  setValues: (changes: FieldChange[]) => void;
  widgets: RegistryWidgetsType;
  fields: RegistryFieldsType;
  idPrefix: string;
  disabled?: boolean;
  uploadFile?: (file: File) => Promise<string>;
  realDevices?: RealDeviceChoices;
}

/**
 * One section as one rjsf Form. The engine has resolved the conditions (the section schema has
 * only active fields and no if/then) and validated the data; rjsf draws and reports changes
 * (`noValidate`; the engine's messages arrive as `extraErrors`).
 */
export const SectionForm = memo(function SectionForm({
  problem,
  section,
  formValue,
  errors,
  context,
  setValues,
  widgets,
  fields,
  idPrefix,
  disabled,
  uploadFile,
  realDevices,
}: SectionFormProps) {
  const fieldNames = useMemo(() => section.fields.map((f) => f.name), [section.fields]);
  const schema = useJsonMemo(section.schema as RJSFSchema);
  const uiSchema = useJsonMemo(section.uiSchema as UiSchema);
  const formData = useJsonMemo(pickFields(formValue, fieldNames));
  const extraErrors = useJsonMemo(toErrorSchema(errors, section.fields));
  const fieldViews = useJsonMemo(indexFieldViews(section.fields));
  const stableFormValue = useJsonMemo(formValue);

  const formContext = useMemo<RendererFormContext>(
    () => ({
      problem,
      context,
      formPath: section.path,
      section: { heading: section.heading, size: section.fields.length },
      fields: fieldViews,
      formValue: stableFormValue,
      setValues,
      ...(uploadFile ? { uploadFile } : {}),
      ...(realDevices ? { realDevices } : {}),
    }),
    [
      problem,
      context,
      section.path,
      section.heading,
      section.fields.length,
      fieldViews,
      stableFormValue,
      setValues,
      uploadFile,
      realDevices,
    ],
  );

  const onChange = useCallback(
    (event: IChangeEvent) => {
      const next = (event.formData ?? {}) as Record<string, unknown>;
      const changes = diffFormValues(section.path, fieldNames, formData, next);
      if (changes.length > 0) setValues(changes);
    },
    [section.path, fieldNames, formData, setValues],
  );

  return (
    <Form
      tagName="div"
      idPrefix={`${idPrefix}-${section.form}`}
      schema={schema}
      uiSchema={uiSchema}
      formData={formData}
      formContext={formContext}
      validator={sectionFormValidator}
      noValidate
      noHtml5Validate
      showErrorList={false}
      extraErrors={extraErrors}
      widgets={widgets}
      fields={fields}
      templates={THEME_TEMPLATES}
      disabled={disabled}
      onChange={onChange}
      experimental_defaultFormStateBehavior={NO_DEFAULTS}
    />
  );
});
