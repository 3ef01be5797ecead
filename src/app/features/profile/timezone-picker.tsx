import { useId, useMemo, useState } from 'react';
import { searchTimeZones } from '../../format/timezones';

interface Props {
  value: string;
  onChange: (zone: string) => void;
  placeholder: string;
  /** The text when nothing matches: the profile says 'No timezone found', settings 'No time zone found'. */
  emptyText: string;
  label?: string;
}

/** A searchable list over every IANA zone. */
export function TimezonePicker({ value, onChange, placeholder, emptyText, label = 'Timezone' }: Props) {
  const id = useId();
  const [query, setQuery] = useState<string | null>(null);
  const matches = useMemo(() => (query === null ? [] : searchTimeZones(query)), [query]);
  const open = query !== null;
  return (
    <div className="tz-picker">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        role="combobox"
        aria-expanded={open}
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        placeholder={placeholder}
        value={query ?? value}
        onFocus={() => setQuery('')}
        onBlur={() => setQuery(null)}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') (e.target as HTMLInputElement).blur();
          if (e.key === 'Enter' && matches.length > 0) {
            e.preventDefault();
            onChange(matches[0]!);
            (e.target as HTMLInputElement).blur();
          }
        }}
      />
      {open && (
        <ul className="tz-list" id={`${id}-list`} role="listbox">
          {matches.length === 0 ? (
            <li className="tz-empty">{emptyText}</li>
          ) : (
            matches.map((zone) => (
              <li
                key={zone}
                role="option"
                aria-selected={zone === value}
                // mousedown, not click: it comes before the input's blur closes the list
                onMouseDown={(e) => {
                  e.preventDefault();
                  onChange(zone);
                  (document.activeElement as HTMLElement | null)?.blur();
                }}
              >
                {zone.replace(/_/g, ' ')}
              </li>
            ))
          )}
        </ul>
      )}
    </div>
  );
}
