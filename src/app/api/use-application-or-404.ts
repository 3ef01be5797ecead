import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { getApplication, type ApplicationDetail } from './applications';

/**
 * The application named by a route's :appId. An id that is not a positive whole number, or an
 * application that cannot be loaded (someone else's, deleted), goes to /error/404 (spec section 8).
 * `id` is the parsed id once it is valid (null before), so a page can load more by it in parallel.
 * `onFailure` is told the load's message first (the workspace shows it in a toast, spec section 4).
 */
export function useApplicationOr404(
  appId: string | undefined,
  onFailure?: (message: string) => void,
): {
  id: number | null;
  app: ApplicationDetail | null;
} {
  const navigate = useNavigate();
  const [app, setApp] = useState<ApplicationDetail | null>(null);
  // The latest callback, so that a new function each render does not load the application again.
  const failure = useRef(onFailure);
  useEffect(() => {
    failure.current = onFailure;
  }, [onFailure]);
  const parsed = Number(appId);
  const id = Number.isSafeInteger(parsed) && parsed > 0 ? parsed : null;

  useEffect(() => {
    if (id === null) {
      void navigate('/error/404', { replace: true });
      return;
    }
    let cancelled = false;
    getApplication(id)
      .then((found) => !cancelled && setApp(found))
      .catch((error: unknown) => {
        if (cancelled) return;
        failure.current?.(error instanceof Error ? error.message : String(error));
        void navigate('/error/404', { replace: true });
      });
    return () => {
      cancelled = true;
    };
  }, [id, navigate]);

  return { id, app };
}
