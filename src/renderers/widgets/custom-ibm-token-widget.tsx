import type { WidgetProps } from '@rjsf/utils';
import { useState } from 'react';

import { errorId } from '../controls';

interface TokenInputProps {
  id: string;
  value: unknown;
  onChange: (value: string | undefined) => void;
  placeholder?: string;
  disabled?: boolean;
  invalid?: boolean;
}

/** A secret text input with a show/hide switch; an empty input means undefined. */
export function TokenInput({ id, value, onChange, placeholder, disabled, invalid }: TokenInputProps) {
  const [visible, setVisible] = useState(false);
  return (
    <span className="qs-token">
      <input
        id={id}
        name={id}
        type={visible ? 'text' : 'password'}
        autoComplete="off"
        spellCheck={false}
        className="qs-input"
        value={typeof value === 'string' ? value : ''}
        placeholder={placeholder}
        disabled={disabled}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? errorId(id) : undefined}
        onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
      />
      <button
        type="button"
        className="qs-link-button"
        disabled={disabled}
        aria-pressed={visible}
        onClick={() => setVisible((v) => !v)}
      >
        {visible ? 'Hide' : 'Show'}
      </button>
    </span>
  );
}

/** `customIbmToken`: the user's own IBM Quantum token (kept out of view unless asked). */
export function CustomIbmTokenWidget(props: WidgetProps) {
  const { id, value, onChange, placeholder, disabled, readonly, rawErrors } = props;
  return (
    <TokenInput
      id={id}
      value={value}
      onChange={(v) => onChange(v)}
      placeholder={placeholder}
      disabled={disabled || readonly}
      invalid={!!rawErrors?.length}
    />
  );
}
