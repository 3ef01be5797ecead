import { useEffect } from 'react';

/**
 * Spec section 2: every page view is tracked. The hook point only: the tracking issue fills this in
 * (sending `path` once per view); until then it records nothing.
 */
export function usePageView(path: string): void {
  useEffect(() => {
    // Intentionally empty until the tracking issue lands; `path` is the view to record.
    void path;
  }, [path]);
}
