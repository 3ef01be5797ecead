import { RUNNING_BANNER } from './workspace-rules';

export interface WorkspaceTopBarProps {
  appName: string;
  problemName: string;
  running: boolean;
  unsaved: boolean;
  onRun: () => void;
  onSave: () => void;
  /** The running banner's click: opens the Outputs tab. */
  onShowOutputs: () => void;
}

/**
 * Spec section 2, top bar: the application's name, 'Run the Application' (disabled while running), 'Save the
 * Application', and while running the banner that opens the Outputs tab. The Dashboard / Home and Examples
 * links are the app's own top bar above (one set of links on the page, not two with the same names).
 */
export function WorkspaceTopBar({
  appName,
  problemName,
  running,
  unsaved,
  onRun,
  onSave,
  onShowOutputs,
}: WorkspaceTopBarProps) {
  return (
    <div className="workspace-bar">
      <div className="workspace-bar-row">
        <div className="workspace-title">
          <p className="muted">{problemName}</p>
          <h1>
            {appName}
            {unsaved && (
              <span className="workspace-unsaved" title="Changes not saved to the server yet">
                Unsaved changes
              </span>
            )}
          </h1>
        </div>
        <div className="workspace-actions">
          <button type="button" className="button secondary" onClick={onSave}>
            Save the Application
          </button>
          <button type="button" className="button primary" onClick={onRun} disabled={running}>
            Run the Application
          </button>
        </div>
      </div>
      {running && (
        <button
          type="button"
          className="workspace-banner"
          data-testid="running-banner"
          onClick={onShowOutputs}
        >
          <span className="spinner workspace-spinner" aria-hidden="true" />
          {RUNNING_BANNER}
        </button>
      )}
    </div>
  );
}
