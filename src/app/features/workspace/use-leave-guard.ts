import { useEffect } from 'react';
import { useBlocker } from 'react-router';
import { LEAVE_PROMPT } from './workspace-rules';

/**
 * Spec section 2: while the application has unsaved changes, leaving asks 'Be sure to save application
 * before leaving. Are you sure you want to leave?'.
 *
 * In-app navigation goes through react-router's useBlocker, which sees every way of leaving the route (a
 * link in any bar, navigate() from a menu, the browser's Back button) before it happens. It needs a data
 * router, so app.tsx uses createBrowserRouter/RouterProvider rather than <BrowserRouter>; intercepting link
 * clicks and popstate by hand would miss navigate() calls and could only undo a Back after the fact.
 * Closing or reloading the tab is the browser's own beforeunload prompt (browsers show their own words).
 */
export function useLeaveGuard(unsaved: boolean): void {
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => unsaved && currentLocation.pathname !== nextLocation.pathname,
  );

  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    if (window.confirm(LEAVE_PROMPT)) blocker.proceed();
    else blocker.reset();
  }, [blocker]);

  useEffect(() => {
    if (!unsaved) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      event.returnValue = LEAVE_PROMPT;
      return LEAVE_PROMPT;
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [unsaved]);
}
