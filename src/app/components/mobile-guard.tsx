import { useCallback, useSyncExternalStore, type ReactNode } from 'react';

/** Spec section 9: the minimum supported screen width is 768 px; narrower screens get a notice. */
export const MIN_WIDTH_PX = 768;
export const MOBILE_QUERY = `(max-width: ${MIN_WIDTH_PX - 0.02}px)`;
export const MOBILE_TEXT = 'Mobile View is not supported';

/** Whether a media query matches now, following its changes (false where matchMedia is missing). */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      if (typeof window.matchMedia !== 'function') return () => undefined;
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    [query],
  );
  const snapshot = () => typeof window.matchMedia === 'function' && window.matchMedia(query).matches;
  return useSyncExternalStore(subscribe, snapshot, () => false);
}

/** Below 768 px the app is replaced by 'Mobile View is not supported' (spec section 2). */
export function MobileGuard({ children }: { children: ReactNode }) {
  const narrow = useMediaQuery(MOBILE_QUERY);
  if (!narrow) return <>{children}</>;
  return (
    <section className="mobile-guard" role="alert">
      <span className="logo-mark" aria-hidden="true">
        ⟨ψ⟩
      </span>
      <h1>{MOBILE_TEXT}</h1>
      <p className="muted">QML Studio needs a screen at least {MIN_WIDTH_PX} px wide.</p>
    </section>
  );
}
