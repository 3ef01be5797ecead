import type { KeyboardEvent } from 'react';
import type { TabDef } from '../../../engine';

export interface WorkspaceTabsProps {
  tabs: TabDef[];
  active: number;
  /** Tab ids that are incomplete (red marker): 'dataset', 'model'. */
  incomplete: Set<string>;
  /** The Outputs tab's badge (none while unknown). */
  outputCount: number | null;
  onSelect: (index: number) => void;
  /** The blocked-Pipeline warning, shown while set. */
  warning: string | null;
}

export const tabId = (index: number) => `workspace-tab-${index}`;
export const panelId = (index: number) => `workspace-panel-${index}`;

/** The four workspace tabs (labels from platform.json) with markers, the outputs badge and the warning. */
export function WorkspaceTabs({
  tabs,
  active,
  incomplete,
  outputCount,
  onSelect,
  warning,
}: WorkspaceTabsProps) {
  // Arrow keys move between tabs (WAI-ARIA tabs pattern); Pipeline's gate applies as for a click.
  const onKeyDown = (event: KeyboardEvent) => {
    const at = tabs.findIndex((t) => t.index === active);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step || at < 0) return;
    event.preventDefault();
    onSelect(tabs[(at + step + tabs.length) % tabs.length]!.index);
  };
  return (
    <div className="workspace-tabs-wrap">
      <div className="workspace-tabs" role="tablist" aria-label="Workspace" onKeyDown={onKeyDown}>
        {tabs.map((tab) => {
          const selected = tab.index === active;
          return (
            <button
              key={tab.id}
              type="button"
              role="tab"
              id={tabId(tab.index)}
              aria-selected={selected}
              aria-controls={selected ? panelId(tab.index) : undefined}
              tabIndex={selected ? 0 : -1}
              className={`workspace-tab${selected ? ' active' : ''}`}
              onClick={() => onSelect(tab.index)}
            >
              {tab.label}
              {incomplete.has(tab.id) && (
                <span
                  className="workspace-tab-marker"
                  data-testid={`tab-marker-${tab.id}`}
                  title="Incomplete"
                  aria-hidden="true"
                />
              )}
              {tab.id === 'outputs' && outputCount !== null && (
                <span className="workspace-tab-badge" data-testid="outputs-count">
                  {outputCount}
                </span>
              )}
            </button>
          );
        })}
      </div>
      {warning && (
        <p className="workspace-warning" role="alert">
          {warning}
        </p>
      )}
    </div>
  );
}
