import { Component, type ErrorInfo, type ReactNode } from 'react';

export const RENDER_ERROR_TEXT = 'Something went wrong!';

/**
 * A render error shows the spec's 'Something went wrong!' instead of a blank page. It sits outside
 * the router, so its way home is a plain link (a full load, which also resets the broken state).
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <section className="page centered" role="alert">
        <h1>{RENDER_ERROR_TEXT}</h1>
        <p className="muted">The page could not be shown. Reload it or go back to the start.</p>
        <p className="error-actions">
          <button type="button" className="button secondary" onClick={() => window.location.reload()}>
            Reload
          </button>
          <a className="button primary" href="/">
            Back to Home
          </a>
        </p>
      </section>
    );
  }
}
