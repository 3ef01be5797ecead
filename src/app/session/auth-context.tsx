import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError, getAccessToken, setAccessToken } from '../api/client';
import { useOptionalToast } from '../components/toasts';
import { storeTimeZone } from '../format/timezones';
import { getCurrentUser, logout as logoutCall, type CurrentUser } from './api/current-user';

/** Spec section 8: a stored token whose user cannot be fetched signs the visitor out with this. */
export const USER_INFO_FAILED = 'Failed to fetch user info. Please login again.';

interface AuthState {
  user: CurrentUser | null;
  loading: boolean;
  refresh: () => Promise<void>;
  logout: () => Promise<void>;
}

const AuthContext = createContext<AuthState | null>(null);

/**
 * Forgets the stored token only when the server refused it (401, or 403 for an account no longer let
 * in). A lookup that never got an answer (the page navigated away mid-request, the network or the
 * server was down) keeps it: another tab or the next page would otherwise be signed out too, since
 * they share the token's storage.
 */
function forgetTokenIfRefused(error: unknown) {
  if (error instanceof ApiError && (error.status === 401 || error.status === 403)) setAccessToken(null);
}

/**
 * The account's time zone (saved on Settings) is the one dates are shown in, in any browser the user
 * signs in from: it is kept where the date formatter reads it before the signed-in user is rendered.
 */
function adoptZone(user: CurrentUser): CurrentUser {
  if (user.provided_timezone) storeTimeZone(user.provided_timezone);
  return user;
}

/** Loads the current user on first view; a failed lookup means signed out. */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<CurrentUser | null>(null);
  const [loading, setLoading] = useState(() => Boolean(getAccessToken()));
  const notify = useOptionalToast();

  const refresh = useCallback(async () => {
    if (!getAccessToken()) {
      setUser(null);
      setLoading(false);
      return;
    }
    try {
      setUser(adoptZone(await getCurrentUser()));
    } catch (error) {
      forgetTokenIfRefused(error);
      setUser(null);
    } finally {
      setLoading(false);
    }
  }, []);

  const logout = useCallback(async () => {
    await logoutCall().catch(() => undefined);
    setUser(null);
  }, []);

  useEffect(() => {
    if (!getAccessToken()) return;
    let cancelled = false;
    getCurrentUser()
      .then((found) => !cancelled && setUser(adoptZone(found)))
      .catch((error: unknown) => {
        // The lookup's own text ('Get current user failed: ...') is for diagnosis; the user is told below.
        console.warn(error instanceof Error ? error.message : error);
        forgetTokenIfRefused(error);
        if (cancelled) return;
        setUser(null);
        notify?.('error', USER_INFO_FAILED);
      })
      .finally(() => !cancelled && setLoading(false));
    return () => {
      cancelled = true;
    };
  }, [notify]);

  const value = useMemo(() => ({ user, loading, refresh, logout }), [user, loading, refresh, logout]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/** The signed-in state where an AuthProvider is above, else null (components also rendered on their own). */
export function useOptionalAuth(): AuthState | null {
  return useContext(AuthContext);
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth needs an AuthProvider');
  return state;
}
