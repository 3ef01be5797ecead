import type { WidgetProps } from '@rjsf/utils';
import { useState } from 'react';

import { errorId } from '../controls';
import { FILTER_THRESHOLD, columnOptions } from './column-options';

function RadioGroup(props: WidgetProps & { columnSelector: boolean }) {
  const { id, value, onChange, options, disabled, readonly, rawErrors, columnSelector } = props;
  const choices = columnOptions(options.enumOptions, value === undefined ? [] : [value]);
  const [filter, setFilter] = useState('');
  const shown =
    filter && columnSelector
      ? choices.filter((c) => c.label.toLowerCase().includes(filter.toLowerCase()) || c.value === value)
      : choices;
  const selectorLabel = typeof options.selectorLabel === 'string' ? options.selectorLabel : undefined;
  return (
    <div
      className={`qs-radio${columnSelector ? ' qs-radio--columns' : ''}`}
      role="radiogroup"
      aria-labelledby={`${id}__label`}
      aria-describedby={rawErrors?.length ? errorId(id) : undefined}
      id={id}
    >
      {columnSelector && selectorLabel && <span className="qs-hint">{selectorLabel}</span>}
      {columnSelector && choices.length > FILTER_THRESHOLD && (
        <input
          type="search"
          className="qs-input qs-filter"
          placeholder="Filter columns"
          aria-label="Filter columns"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
      )}
      {choices.length === 0 ? (
        <p className="qs-hint">No columns yet. Upload a dataset to choose from its columns.</p>
      ) : (
        <div className={columnSelector ? 'qs-option-grid' : 'qs-option-row'}>
          {shown.map((choice) => {
            const checked = choice.value === value;
            const optionId = `${id}-${choice.key}`;
            return (
              <label
                key={choice.key}
                className={`qs-option${checked ? ' is-checked' : ''}`}
                htmlFor={optionId}
              >
                <input
                  id={optionId}
                  type="radio"
                  name={id}
                  checked={checked}
                  disabled={disabled || readonly}
                  onChange={() => onChange(choice.value)}
                />
                <span>{choice.label}</span>
              </label>
            );
          })}
        </div>
      )}
    </div>
  );
}

/** `radio`: the field's options as radio buttons in a row. */
export function RadioWidget(props: WidgetProps) {
  return <RadioGroup {...props} columnSelector={props.options.columnSelector === true} />;
}

/** `radioColumn` (radio with a column selector): one of the dataset's visible columns, filterable. */
export function RadioColumnWidget(props: WidgetProps) {
  return <RadioGroup {...props} columnSelector />;
}
