import { useCallback, useEffect, useRef, useState } from 'react';
import { ALERT_MS, UNDER_DEVELOPMENT } from './service-catalog';

/** An in-page alert that hides itself after 5 s; `show()` again restarts the 5 s. */
export function useUnderDevelopment() {
  const [shown, setShown] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const show = useCallback(() => {
    clearTimeout(timer.current);
    setShown(true);
    timer.current = setTimeout(() => setShown(false), ALERT_MS);
  }, []);
  const hide = useCallback(() => {
    clearTimeout(timer.current);
    setShown(false);
  }, []);
  return { shown, show, hide };
}

/** Spec section 2: clicking a service card shows 'Under Development'. */
export function UnderDevelopmentAlert({ shown, onClose }: { shown: boolean; onClose: () => void }) {
  // The live region stays in the page so screen readers announce the text when it appears.
  return (
    <div className="under-development-region" aria-live="assertive">
      {shown && (
        <div className="under-development" role="alert">
          <span>
            <strong>{UNDER_DEVELOPMENT}</strong> — this service is not available yet.
          </span>
          <button type="button" className="link-button" aria-label="Close alert" onClick={onClose}>
            ×
          </button>
        </div>
      )}
    </div>
  );
}
