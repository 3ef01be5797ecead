import { useRef, type KeyboardEvent, type ReactNode } from 'react';

interface Props<Id extends string> {
  /** Names the tab list for assistive technology and prefixes the element ids. */
  label: string;
  idPrefix: string;
  tabs: readonly { id: Id; title: string }[];
  selected: Id;
  onSelect: (id: Id) => void;
  children: ReactNode;
}

/** A tab list with one panel (WAI-ARIA tabs): arrow keys, Home and End move between tabs. */
export function Tabs<Id extends string>({ label, idPrefix, tabs, selected, onSelect, children }: Props<Id>) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const onKey = (event: KeyboardEvent, index: number) => {
    const last = tabs.length - 1;
    const next = {
      ArrowRight: index === last ? 0 : index + 1,
      ArrowLeft: index === 0 ? last : index - 1,
      Home: 0,
      End: last,
    }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    onSelect(tabs[next]!.id);
    buttons.current[next]?.focus();
  };
  return (
    <>
      <div className="tabs" role="tablist" aria-label={label}>
        {tabs.map((tab, index) => (
          <button
            key={tab.id}
            ref={(element) => {
              buttons.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`${idPrefix}-tab-${tab.id}`}
            aria-controls={`${idPrefix}-panel`}
            aria-selected={tab.id === selected}
            tabIndex={tab.id === selected ? 0 : -1}
            className={`tab${tab.id === selected ? ' active' : ''}`}
            onClick={() => onSelect(tab.id)}
            onKeyDown={(event) => onKey(event, index)}
          >
            {tab.title}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`${idPrefix}-panel`}
        aria-labelledby={`${idPrefix}-tab-${selected}`}
        tabIndex={0}
      >
        {children}
      </div>
    </>
  );
}
