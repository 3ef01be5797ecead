import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { setAccessToken } from '../../api/client';
import { useAuth } from '../../session/auth-context';
import { rememberEmail } from '../../session/stored-email';

/**
 * The sign-in gate's refusals that have a page of their own, as the server names them in `?error=`
 * (server/auth/sign-in-gate.ts): the same places a refused password sign-in goes.
 */
export const PAGE_OF_REFUSAL: Readonly<Record<string, string>> = {
  not_verified: '/pending-verify',
  not_approved: '/waiting-admin-approval',
  no_role: '/unauthorized',
};

/**
 * /oauth2/redirect: keeps ?token= as the session token and goes to /. A refusal with a page of its
 * own goes there (remembering ?email= for the pending pages); any other ?error= is ignored (spec).
 */
export function OAuthRedirectPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { refresh } = useAuth();
  useEffect(() => {
    const token = params.get('token');
    const page = PAGE_OF_REFUSAL[params.get('error') ?? ''];
    if (token) setAccessToken(token);
    else if (page) {
      const email = params.get('email');
      if (email) rememberEmail(email);
      navigate(page, { replace: true });
      return;
    }
    void refresh().finally(() => navigate('/', { replace: true }));
  }, [params, navigate, refresh]);
  return <p className="muted">Signing you in…</p>;
}
