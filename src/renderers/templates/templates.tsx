// The project theme for rjsf: a label row (required mark, help link), the control, a hint and
// the field's first message; sections lay their fields out on a two-column grid where wide
// widgets (column lists, splitter, device picker, dataset) take the whole row.

import type {
  DescriptionFieldProps,
  FieldErrorProps,
  FieldTemplateProps,
  ObjectFieldTemplateProps,
  TemplatesType,
  TitleFieldProps,
} from '@rjsf/utils';

import type { FieldKind } from '../../engine';

import { FieldMessage } from '../controls';

/** Field kinds drawn across the whole row, and kinds that are groups (labelled, not a <label>). */
const WIDE_KINDS: ReadonlySet<string> = new Set<FieldKind>([
  'columnChecklist',
  'splitter',
  'devicePicker',
  'datasetSource',
  'file',
]);
const GROUP_KINDS: ReadonlySet<string> = new Set<FieldKind>([
  'columnChecklist',
  'radio',
  'splitter',
  'devicePicker',
  'datasetSource',
  'file',
]);

function uiOptions(uiSchema: unknown): Record<string, unknown> {
  const options = (uiSchema as { 'ui:options'?: Record<string, unknown> } | undefined)?.['ui:options'];
  return options ?? {};
}

export function FieldTemplate(props: FieldTemplateProps) {
  const {
    id,
    label,
    children,
    rawErrors,
    hidden,
    required,
    uiSchema,
    fieldPathId,
    rawDescription,
    registry,
  } = props;
  if (fieldPathId.path.length === 0) return children;
  if (hidden) return null;
  const options = uiOptions(uiSchema);
  const kind = typeof options.kind === 'string' ? options.kind : 'text';
  const wide = WIDE_KINDS.has(kind) || (kind === 'radio' && options.columnSelector === true);
  const helplink = typeof options.helplink === 'string' ? options.helplink : undefined;
  const message = rawErrors?.[0];
  // The only field of a section named like the section: its heading already says it.
  const section = (registry.formContext as { section?: { heading: string; size: number } } | undefined)
    ?.section;
  const repeatsHeading = fieldPathId.path.length === 1 && section?.size === 1 && section.heading === label;
  const labelContent = (
    <>
      {label}
      {required && (
        <span className="qs-required" aria-hidden="true">
          {' '}
          *
        </span>
      )}
    </>
  );
  return (
    <div
      className={`qs-field qs-field--${kind}${wide ? ' qs-field--wide' : ''}${message ? ' has-error' : ''}`}
      data-field={fieldPathId.path.join('.')}
    >
      {kind !== 'toggle' && (
        <div className={repeatsHeading ? 'qs-visually-hidden' : 'qs-label-row'}>
          {GROUP_KINDS.has(kind) ? (
            <span className="qs-label" id={`${id}__label`}>
              {labelContent}
            </span>
          ) : (
            <label className="qs-label" id={`${id}__label`} htmlFor={id}>
              {labelContent}
            </label>
          )}
          {helplink && (
            <a
              className="qs-help"
              href={helplink}
              target="_blank"
              rel="noreferrer"
              aria-label={`About ${label}`}
            >
              ?
            </a>
          )}
        </div>
      )}
      {children}
      {rawDescription && kind !== 'toggle' && <p className="qs-hint qs-description">{rawDescription}</p>}
      <FieldMessage id={id} message={message} />
    </div>
  );
}

export function ObjectFieldTemplate(props: ObjectFieldTemplateProps) {
  const { properties, fieldPathId, title } = props;
  const content = properties.filter((p) => !p.hidden).map((p) => p.content);
  if (fieldPathId.path.length === 0) return <div className="qs-grid">{content}</div>;
  return (
    <fieldset className="qs-fieldset" id={fieldPathId.$id}>
      {title && <legend>{title}</legend>}
      <div className="qs-grid">{content}</div>
    </fieldset>
  );
}

/** Messages are drawn by FieldTemplate (first message only); nothing else lists them. */
function Nothing() {
  return null;
}

function TitleField({ id, title }: TitleFieldProps) {
  return title ? (
    <h4 className="qs-subtitle" id={id}>
      {title}
    </h4>
  ) : null;
}

function DescriptionField({ id, description }: DescriptionFieldProps) {
  return description ? (
    <p className="qs-hint" id={id}>
      {description}
    </p>
  ) : null;
}

function FieldErrors(_props: FieldErrorProps) {
  return null;
}

export const THEME_TEMPLATES: Partial<Omit<TemplatesType, 'ButtonTemplates'>> & {
  ButtonTemplates: Partial<TemplatesType['ButtonTemplates']>;
} = {
  FieldTemplate,
  ObjectFieldTemplate,
  TitleFieldTemplate: TitleField,
  DescriptionFieldTemplate: DescriptionField,
  ErrorListTemplate: Nothing,
  FieldErrorTemplate: FieldErrors,
  FieldHelpTemplate: Nothing,
  ButtonTemplates: { SubmitButton: Nothing },
};
