import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { getApplication, type ApplicationDetail } from './api';

/**
 * The application named by a route's :appId. An id that is not a positive whole number, or an
 * application that cannot be loaded (someone else's, deleted), goes to /error/404 (spec section 8).
 * `id` is the parsed id once it is valid (null before), so a page can load more by it in parallel.
 */
export function useApplicationOr404(appId: string | undefined): {
  id: number | null;
  app: ApplicationDetail | null;
} {
  const navigate = useNavigate();
  const [app, setApp] = useState<ApplicationDetail | null>(null);
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
      .catch(() => !cancelled && void navigate('/error/404', { replace: true }));
    return () => {
      cancelled = true;
    };
  }, [id, navigate]);

  return { id, app };
}
