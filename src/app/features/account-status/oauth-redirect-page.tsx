import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { setAccessToken } from '../../api/client';
import { useAuth } from '../auth/auth-context';

/** /oauth2/redirect: keeps ?token= as the session token and goes to /; ?error= is read and ignored (spec). */
export function OAuthRedirectPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { refresh } = useAuth();
  useEffect(() => {
    const token = params.get('token');
    if (token) setAccessToken(token);
    void refresh().finally(() => navigate('/', { replace: true }));
  }, [params, navigate, refresh]);
  return <p className="muted">Signing you in…</p>;
}
