import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { getAccessToken } from '../api/client';
import type { CurrentUser } from './api/current-user';
import { useAuth } from './auth-context';
import { rememberEmail } from './stored-email';

type GateUser = Pick<CurrentUser, 'email' | 'email_verified' | 'is_approved' | 'roles'>;

/**
 * Where a protected page sends this visitor, or null to show it: the spec's order (section 4) —
 * no user or no token, e-mail not verified, not approved, no role.
 */
export function accessRedirect(user: GateUser | null, hasToken: boolean, signedOutPath = '/'): string | null {
  if (!user || !hasToken) return signedOutPath;
  if (!user.email_verified) return '/pending-verify';
  if (!user.is_approved) return '/waiting-admin-approval';
  if (user.roles.length === 0) return '/unauthorized';
  return null;
}

/** Wraps a protected page: redirects by {@link accessRedirect}, remembering the e-mail for the pending pages. */
export function AccessGate({
  children,
  signedOutPath = '/',
}: {
  children: ReactNode;
  signedOutPath?: string;
}) {
  const { user, loading } = useAuth();
  if (loading) return <p className="muted">Loading…</p>;
  const target = accessRedirect(user, Boolean(getAccessToken()), signedOutPath);
  if (target === null) return children;
  if (user && target !== signedOutPath) rememberEmail(user.email);
  return <Navigate to={target} replace />;
}
