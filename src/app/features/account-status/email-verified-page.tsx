import { useEffect } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';

/** Spec section 9: /email-verified moves on after 5 s. */
export const EMAIL_VERIFIED_REDIRECT_MS = 5000;

/** /email-verified: where the mail's link lands; ?status=invalid for an unknown, used or expired link. */
export function EmailVerifiedPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const invalid = params.get('status') === 'invalid';

  useEffect(() => {
    if (invalid) return;
    const id = setTimeout(
      () => navigate('/waiting-admin-approval', { replace: true }),
      EMAIL_VERIFIED_REDIRECT_MS,
    );
    return () => clearTimeout(id);
  }, [invalid, navigate]);

  return (
    <section className="page status-page">
      <div className="card status-card">
        {invalid ? (
          <>
            <p className="status-icon error" aria-hidden="true">
              !
            </p>
            <h1>Link not valid</h1>
            <p>This verification link is unknown, already used or expired. Request a new one below.</p>
            <div className="status-actions">
              <Link className="button primary" to="/pending-verify">
                Get a new link
              </Link>
            </div>
          </>
        ) : (
          <>
            <p className="status-icon ok" aria-hidden="true">
              ✓
            </p>
            <h1>Email Verified</h1>
            <p>Thank you. You will be taken to the approval page in a few seconds.</p>
          </>
        )}
      </div>
    </section>
  );
}
