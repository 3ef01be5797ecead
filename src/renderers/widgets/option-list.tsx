import type { ColumnChoice } from './column-options';

/** The filter box column widgets show above FILTER_THRESHOLD options. */
export function ColumnFilter({ value, onChange }: { value: string; onChange: (next: string) => void }) {
  return (
    <input
      type="search"
      className="qs-input qs-filter"
      placeholder="Filter columns"
      aria-label="Filter columns"
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/**
 * The options of a checkbox or radio widget as labelled inputs, or the hint that there is nothing
 * to choose from until a dataset is uploaded.
 */
export function OptionList({
  id,
  type,
  choices,
  shown,
  isChecked,
  onToggle,
  disabled,
  layout,
}: {
  id: string;
  type: 'checkbox' | 'radio';
  /** Every option (decides whether the empty hint shows). */
  choices: ColumnChoice[];
  /** The options left by the filter. */
  shown: ColumnChoice[];
  isChecked: (choice: ColumnChoice) => boolean;
  onToggle: (choice: ColumnChoice, checked: boolean) => void;
  disabled: boolean;
  layout: 'grid' | 'row';
}) {
  if (choices.length === 0) {
    return <p className="qs-hint">No columns yet. Upload a dataset to choose from its columns.</p>;
  }
  return (
    <div className={layout === 'grid' ? 'qs-option-grid' : 'qs-option-row'}>
      {shown.map((choice) => {
        const checked = isChecked(choice);
        const optionId = `${id}-${choice.key}`;
        return (
          <label key={choice.key} className={`qs-option${checked ? ' is-checked' : ''}`} htmlFor={optionId}>
            <input
              id={optionId}
              type={type}
              name={id}
              checked={checked}
              disabled={disabled}
              onChange={(e) => onToggle(choice, e.target.checked)}
            />
            <span>{choice.label}</span>
          </label>
        );
      })}
    </div>
  );
}
