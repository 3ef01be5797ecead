import { useMemo } from 'react';

/**
 * The same object for as long as its JSON text does not change, so that rjsf (which compares its
 * props deeply) finds unchanged sections equal at once. Only for JSON data (no functions).
 */
export function useJsonMemo<T>(value: T): T {
  const key = value === undefined ? undefined : JSON.stringify(value);
  return useMemo(() => (key === undefined ? undefined : JSON.parse(key)) as T, [key]);
}
