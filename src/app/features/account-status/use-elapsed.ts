import { useEffect, useState } from 'react';

/** Seconds as mm:ss (minutes keep counting past 59). */
export const formatElapsed = (seconds: number): string =>
  `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;

/** A running mm:ss timer from the first render. */
export function useElapsed(): string {
  const [started] = useState(() => Date.now());
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    const id = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000);
    return () => clearInterval(id);
  }, [started]);
  return formatElapsed(seconds);
}
