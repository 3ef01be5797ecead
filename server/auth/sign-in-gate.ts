import type { UserRecord } from './users-repository';

/** Why an account with the right credentials may not sign in yet, and where the client goes next. */
export interface SignInRefusal {
  status: 403;
  /** A short machine-readable reason (the social sign-in callback passes it as `?error=`). */
  code: 'not_verified' | 'not_approved' | 'no_role';
  detail: string;
  redirect: string;
  email?: string;
}

/**
 * The gate every sign-in passes (password and social), in the spec's order: verified e-mail, admin
 * approval, at least one role. Null when the user may have a session.
 */
export function signInRefusal(user: UserRecord): SignInRefusal | null {
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
