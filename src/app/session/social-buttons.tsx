import { useEffect, useState } from 'react';
import { authorizeUrl, getOAuthProviders, type OAuthProvider } from './api/oauth-providers';

const LABELS: Record<OAuthProvider, string> = {
  google: 'Continue with Google',
  github: 'Continue with GitHub',
};

/** Google and GitHub buttons, only for the providers the server is configured for. */
export function SocialButtons() {
  const [providers, setProviders] = useState<OAuthProvider[]>([]);
  useEffect(() => {
    let live = true;
    getOAuthProviders()
      .then((found) => live && setProviders(found))
      .catch(() => undefined); // no providers listed means no buttons
    return () => {
      live = false;
    };
  }, []);
  if (providers.length === 0) return null;
  return (
    <div className="social-buttons">
      <span className="muted divider-text">or</span>
      {providers.map((provider) => (
        <a key={provider} className={`button secondary social ${provider}`} href={authorizeUrl(provider)}>
          {LABELS[provider]}
        </a>
      ))}
    </div>
  );
}
