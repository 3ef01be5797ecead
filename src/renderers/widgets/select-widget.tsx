import type { WidgetProps } from '@rjsf/utils';

import { SelectControl } from '../controls';

/** `select`: the field's options (enum with its labels), typed values, a placeholder choice. */
export function SelectWidget(props: WidgetProps) {
  const { id, value, onChange, options, placeholder, disabled, readonly, required, rawErrors } = props;
  return (
    <SelectControl
      id={id}
      options={options.enumOptions ?? []}
      value={value}
      onChange={(v) => onChange(v)}
      placeholder={placeholder || 'Select…'}
      disabled={disabled || readonly}
      required={required}
      invalid={!!rawErrors?.length}
    />
  );
}
