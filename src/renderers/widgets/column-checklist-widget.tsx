import type { WidgetProps } from '@rjsf/utils';
import { useState } from 'react';

import { errorId } from '../controls';
import { FILTER_THRESHOLD, columnOptions } from './column-options';
import { ColumnFilter, OptionList } from './option-list';

/**
 * `columnChecklist` (columnChecklist kind): the dataset's visible columns (the engine removes id, date,
 * ticker, ...) as checkboxes in several columns. The order of ticking is kept in the value.
 */
export function ColumnChecklistWidget(props: WidgetProps) {
  const { id, value, onChange, options, disabled, readonly, rawErrors } = props;
  const selected: unknown[] = Array.isArray(value) ? value : [];
  const choices = columnOptions(options.enumOptions, selected);
  const [filter, setFilter] = useState('');
  const locked = Boolean(disabled || readonly);
  const shown = filter
    ? choices.filter((c) => c.label.toLowerCase().includes(filter.toLowerCase()))
    : choices;
  const selectorLabel = typeof options.selectorLabel === 'string' ? options.selectorLabel : 'Select columns';
  const set = (next: unknown[]) => onChange(next.length > 0 ? next : []);

  return (
    <div
      className="qs-checklist"
      role="group"
      aria-labelledby={`${id}__label`}
      aria-describedby={rawErrors?.length ? errorId(id) : undefined}
      id={id}
    >
      <div className="qs-checklist-head">
        <span className="qs-hint" id={`${id}__selector`}>
          {selectorLabel}
          {choices.length > 0 && ` · ${selected.length} of ${choices.length} selected`}
        </span>
        {choices.length > 0 && (
          <span className="qs-checklist-actions">
            <button
              type="button"
              className="qs-link-button"
              disabled={locked}
              onClick={() => set(choices.map((c) => c.value))}
            >
              Select all
            </button>
            <button type="button" className="qs-link-button" disabled={locked} onClick={() => set([])}>
              Clear
            </button>
          </span>
        )}
      </div>
      {choices.length > FILTER_THRESHOLD && <ColumnFilter value={filter} onChange={setFilter} />}
      <OptionList
        id={id}
        type="checkbox"
        choices={choices}
        shown={shown}
        isChecked={(choice) => selected.includes(choice.value)}
        onToggle={(choice, checked) =>
          set(checked ? [...selected, choice.value] : selected.filter((v) => v !== choice.value))
        }
        disabled={locked}
        layout="grid"
      />
    </div>
  );
}
