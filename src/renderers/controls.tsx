// Plain controls shared by the widgets and the composite fields (device picker, splitter):
// they take engine-shaped options ({ value, label }) and report typed values.

import type { ChangeEvent } from 'react';

import type { FieldOption } from '../engine';
import { sameValue } from './form-diff';

export interface OptionLike {
  value: unknown;
  label: string;
  /** Shown but not selectable, with this reason (its tooltip). */
  disabledReason?: string;
}

export function errorId(id: string): string {
  return `${id}__error`;
}

/** The first message of a field, shown under it (role=alert so it is announced). */
export function FieldMessage({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p className="qs-error" id={errorId(id)} role="alert">
      {message}
    </p>
  );
}

interface SelectControlProps {
  id: string;
  options: readonly (OptionLike | FieldOption)[];
  value: unknown;
  onChange: (value: unknown) => void;
  placeholder?: string;
  disabled?: boolean;
  required?: boolean;
  invalid?: boolean;
  label?: string;
}

/** A native select over typed values (numbers stay numbers); the empty choice means undefined. */
export function SelectControl({
  id,
  options,
  value,
  onChange,
  placeholder,
  disabled,
  required,
  invalid,
  label,
}: SelectControlProps) {
  const index = options.findIndex((o) => sameValue(o.value, value));
  const unknownValue = index === -1 && value !== undefined && value !== null && value !== '';
  return (
    <select
      id={id}
      name={id}
      className="qs-select"
      value={unknownValue ? '__current' : index === -1 ? '' : String(index)}
      disabled={disabled}
      required={required}
      aria-invalid={invalid || undefined}
      aria-describedby={invalid ? errorId(id) : undefined}
      aria-label={label}
      onChange={(e: ChangeEvent<HTMLSelectElement>) => {
        const v = e.target.value;
        if (v === '') onChange(undefined);
        else if (v !== '__current') onChange(options[Number(v)]?.value);
      }}
    >
      <option value="">{placeholder ?? 'Select…'}</option>
      {unknownValue && <option value="__current">{String(value)}</option>}
      {options.map((o, i) => {
        const reason = 'disabledReason' in o ? o.disabledReason : undefined;
        return (
          <option key={i} value={String(i)} disabled={!!reason} title={reason}>
            {reason ? `${o.label} (not available)` : o.label}
          </option>
        );
      })}
    </select>
  );
}

interface NumberControlProps {
  id: string;
  value: unknown;
  onChange: (value: number | undefined) => void;
  placeholder?: string;
  disabled?: boolean;
  invalid?: boolean;
  step?: number;
  min?: number;
  max?: number;
  label?: string;
}

/** A number input: the value is read as a number, an empty input means undefined. */
export function NumberControl({
  id,
  value,
  onChange,
  placeholder,
  disabled,
  invalid,
  step,
  min,
  max,
  label,
}: NumberControlProps) {
  return (
    <input
      id={id}
      name={id}
      type="number"
      inputMode="decimal"
      className="qs-input"
      value={typeof value === 'number' && Number.isFinite(value) ? value : ''}
      placeholder={placeholder}
      disabled={disabled}
      step={step ?? 'any'}
      min={min}
      max={max}
      aria-invalid={invalid || undefined}
      aria-describedby={invalid ? errorId(id) : undefined}
      aria-label={label}
      onChange={(e) => {
        const raw = e.target.value.trim();
        const n = raw === '' ? undefined : Number(raw);
        onChange(n === undefined || Number.isNaN(n) ? undefined : n);
      }}
    />
  );
}

interface ToggleControlProps {
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  description?: string;
}

/** A labelled checkbox drawn as a switch. */
export function ToggleControl({ id, label, checked, onChange, disabled, description }: ToggleControlProps) {
  return (
    <label className="qs-toggle" htmlFor={id}>
      <input
        id={id}
        name={id}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
      />
      <span className="qs-toggle-track" aria-hidden="true" />
      <span className="qs-toggle-text">
        <span className="qs-toggle-label">{label}</span>
        {description && <span className="qs-hint">{description}</span>}
      </span>
    </label>
  );
}
