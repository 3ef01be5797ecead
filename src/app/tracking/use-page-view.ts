import { useEffect } from 'react';
import { trackView } from './page-tracker';

/** Spec section 2: every page view is tracked (see page-tracker.ts for what is sent and when not). */
export function usePageView(path: string): void {
  useEffect(() => trackView(path), [path]);
}
