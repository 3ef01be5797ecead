import type { UserRecord } from './users-repository';

export const ACCOUNT_DISABLED = 'This account has been disabled.';
export const REGISTRATION_REJECTED = 'Your registration was not approved.';

/** Why an account with the right credentials may not sign in yet, and where the client goes next. */
export interface SignInRefusal {
  status: 403;
  /** A short machine-readable reason (the social sign-in callback passes it as `?error=`). */
  code: 'disabled' | 'rejected' | 'not_verified' | 'not_approved' | 'no_role';
  detail: string;
  /** The page the client goes to next; none for a closed account (it stays where it is). */
  redirect?: string;
  email?: string;
}

/**
 * The gate every sign-in passes (password and social): first a closed account (disabled by an
 * admin, or a rejected registration), then the spec's order: verified e-mail, admin approval, at
 * least one role. Null when the user may have a session.
 */
export function signInRefusal(user: UserRecord): SignInRefusal | null {
  if (user.disabled) return { status: 403, code: 'disabled', detail: ACCOUNT_DISABLED };
  if (user.rejected) return { status: 403, code: 'rejected', detail: REGISTRATION_REJECTED };
  if (!user.email_verified) {
    return {
      status: 403,
      code: 'not_verified',
      detail: 'Please verify your e-mail address before logging in.',
      redirect: '/pending-verify',
      email: user.email,
    };
  }
  if (!user.is_approved) {
    return {
      status: 403,
      code: 'not_approved',
      detail: 'Your account is waiting for admin approval.',
      redirect: '/waiting-admin-approval',
      email: user.email,
    };
  }
  if (user.roles.length === 0) {
    return {
      status: 403,
      code: 'no_role',
      detail: 'No role has been assigned to your account yet. Please contact the admin.',
      redirect: '/unauthorized',
    };
  }
  return null;
}
