import { useEffect, useState } from 'react';
import { ApiError } from '../../api/client';
import { listApplications, type ApplicationSummary } from '../../api/applications';

type MyApplications =
  | { state: 'loading' }
  | { state: 'failed'; message: string }
  | { state: 'loaded'; applications: ApplicationSummary[] };

/** The signed-in user's applications, newest first (by id, as the server orders them). */
export function useMyApplications(userId: number): MyApplications {
  const [result, setResult] = useState<{ userId: number; value: MyApplications } | null>(null);
  useEffect(() => {
    let cancelled = false;
    listApplications(userId)
      .then((applications) => {
        const newest = [...applications].sort((a, b) => b.id - a.id);
        if (!cancelled) setResult({ userId, value: { state: 'loaded', applications: newest } });
      })
      .catch((error: unknown) => {
        const message = error instanceof ApiError ? error.message : String(error);
        if (!cancelled) setResult({ userId, value: { state: 'failed', message } });
      });
    return () => {
      cancelled = true;
    };
  }, [userId]);
  return result?.userId === userId ? result.value : { state: 'loading' };
}
