import type { FieldProps } from '@rjsf/utils';

/**
 * Number and integer fields without rjsf's NumberField: our widgets already report numbers (or
 * undefined), so the text-to-number handling (and its locale lookup through Intl on every
 * render) is not needed. Delegates to rjsf's StringField, which picks the widget and its options.
 */
export function TypedNumberField(props: FieldProps) {
  const { StringField } = props.registry.fields;
  return <StringField {...props} />;
}
