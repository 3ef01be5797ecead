import type { WidgetProps } from '@rjsf/utils';

import { errorId } from '../controls';

/** `text`: a plain text input; an empty input means undefined. */
export function TextWidget(props: WidgetProps) {
  const { id, value, onChange, placeholder, disabled, readonly, rawErrors } = props;
  const invalid = !!rawErrors?.length;
  return (
    <input
      id={id}
      name={id}
      type="text"
      className="qs-input"
      value={typeof value === 'string' ? value : ''}
      placeholder={placeholder}
      disabled={disabled || readonly}
      aria-invalid={invalid || undefined}
      aria-describedby={invalid ? errorId(id) : undefined}
      onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
    />
  );
}
