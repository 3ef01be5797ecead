import type { DemoOutput } from './api/get-demo-compare';
import type { DemoState } from './use-demo-compare';

/**
 * What a demo section shows instead of an example run's results: the spec's 'Loading plots...'
 * until the run's reply is there and while the run is queued or running, 'No plots available for
 * {app}.' when the server has no run of it, and a failed run's reason. Nothing is made up.
 */
export function DemoNotice({ state, app }: { state: DemoState; app: string }) {
  if (state.status === 'loading') return <p className="muted">Loading plots...</p>;
  if (state.status === 'failed') {
    return (
      <p className="form-error" role="alert">
        The demo data could not be loaded. Please try again later.
      </p>
    );
  }
  if (state.status === 'missing' || state.data.outputs.length === 0) {
    return (
      <p className="notice demo-notice" data-testid="demo-notice">
        No plots available for {app}.
      </p>
    );
  }
  return null;
}

/** An example run that has no results to show (yet, or ever), in the spec's and the run's words. */
export function RunNotice({ output, app }: { output: DemoOutput; app: string }) {
  if (output.status === 'queued' || output.status === 'running') {
    return (
      <>
        <p className="muted">Loading plots...</p>
        <p className="muted demo-run-state">
          The {app} example is {output.status === 'queued' ? 'waiting to run' : 'training'} on this server.
        </p>
      </>
    );
  }
  if (output.status !== 'Completed') {
    return (
      <p className="form-error" role="alert">
        The {app} example run ended {output.status}
        {output.error ? `: ${output.error}` : '.'}
      </p>
    );
  }
  return null;
}
