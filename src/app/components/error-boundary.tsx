import { Component, type ErrorInfo, type ReactNode } from 'react';

/** A render error shows the spec's 'Something went wrong!' instead of a blank page. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }

  override render() {
    return this.state.failed ? <p className="notice">Something went wrong!</p> : this.props.children;
  }
}
