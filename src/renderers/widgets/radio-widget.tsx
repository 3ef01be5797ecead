import type { WidgetProps } from '@rjsf/utils';
import { useState } from 'react';

import { errorId } from '../controls';
import { FILTER_THRESHOLD, columnOptions } from './column-options';
import { ColumnFilter, OptionList } from './option-list';

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
        <ColumnFilter value={filter} onChange={setFilter} />
      )}
      <OptionList
        id={id}
        type="radio"
        choices={choices}
        shown={shown}
        isChecked={(choice) => choice.value === value}
        onToggle={(choice) => onChange(choice.value)}
        disabled={Boolean(disabled || readonly)}
        layout={columnSelector ? 'grid' : 'row'}
      />
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
