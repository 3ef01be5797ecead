import type { WidgetProps } from '@rjsf/utils';

import { SelectControl } from '../controls';

/**
 * `select`: the field's options (enum with its labels), typed values, a placeholder choice. Options
 * in x-field.disabled stay listed but cannot be chosen; their reasons are shown under the select.
 */
export function SelectWidget(props: WidgetProps) {
  const { id, value, onChange, options, placeholder, disabled, readonly, required, rawErrors } = props;
  const reasons = (options.disabledOptions ?? {}) as Record<string, string>;
  const choices = (options.enumOptions ?? []).map((o) => ({
    value: o.value as unknown,
    label: o.label,
    disabledReason: reasons[String(o.value)],
  }));
  const notes = choices.flatMap((c) => (c.disabledReason ? [c.disabledReason] : []));
  return (
    <>
      <SelectControl
        id={id}
        options={choices}
        value={value}
        onChange={(v) => onChange(v)}
        placeholder={placeholder || 'Select…'}
        disabled={disabled || readonly}
        required={required}
        invalid={!!rawErrors?.length}
      />
      {notes.length > 0 && (
        <ul className="qs-hint" id={`${id}__disabled`}>
          {notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
    </>
  );
}
