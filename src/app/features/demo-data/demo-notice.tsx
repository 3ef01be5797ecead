import type { DemoState } from './use-demo-compare';

/**
 * What a demo section says when it has no exported outputs to show: no numbers are made up, the
 * comparison is exported from real runs of the example applications (npm run demo:export).
 */
export function DemoNotice({ state, what }: { state: DemoState; what: string }) {
  if (state.status === 'loading') return <p className="muted">Loading...</p>;
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
        {what} appears here once the example applications have been run: it is exported from their real
        outputs, never written by hand.
      </p>
    );
  }
  return null;
}
