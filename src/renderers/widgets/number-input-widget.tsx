import type { WidgetProps } from '@rjsf/utils';

import { NumberControl } from '../controls';

function limit(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** `numberInput` (input kind): read as a number; the step comes from the field's ui options. */
export function NumberInputWidget(props: WidgetProps) {
  const { id, value, onChange, options, placeholder, disabled, readonly, rawErrors, schema } = props;
  return (
    <NumberControl
      id={id}
      value={value}
      onChange={(v) => onChange(v)}
      placeholder={placeholder}
      disabled={disabled || readonly}
      invalid={!!rawErrors?.length}
      step={typeof options.step === 'number' ? options.step : schema.type === 'integer' ? 1 : undefined}
      min={limit(schema.minimum)}
      max={limit(schema.maximum)}
    />
  );
}
