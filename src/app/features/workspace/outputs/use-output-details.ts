import { useEffect, useState } from 'react';
import { getOutputDetail, type OutputDetail } from '../../../api/outputs';

/** The outputs' details, read once per set of ids (a later answer for ids no longer shown is dropped). */
export function useOutputDetails(ids: readonly number[]): {
  details: OutputDetail[] | null;
  error: string | null;
} {
  const [details, setDetails] = useState<OutputDetail[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = ids.join(',');
  useEffect(() => {
    let cancelled = false;
    Promise.all(key.split(',').map((id) => getOutputDetail(Number(id)))).then(
      (found) => !cancelled && setDetails(found),
      (e: Error) => !cancelled && setError(e.message),
    );
    return () => {
      cancelled = true;
    };
  }, [key]);
  return { details, error };
}
