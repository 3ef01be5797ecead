import { MyApplicationLinks } from './application-links';

/**
 * /services/outputs — the sidebar's Outputs entry. The spec names the link but not its page. Outputs
 * (runs) belong to applications and are listed on each application's detail page (its outputs table,
 * spec section 2), and the API has no cross-application output list; so this page lists the
 * signed-in user's applications, each opening its detail page with its outputs. A visitor is asked
 * to sign in.
 */
export function ServiceOutputs() {
  return (
    <section className="page service-outputs">
      <header className="page-header">
        <h1>Outputs</h1>
        <p className="muted">The results of your runs, by application: open one to see its outputs.</p>
      </header>
      <div className="card">
        <MyApplicationLinks signInMessage="Sign in to view the outputs of your applications." />
      </div>
    </section>
  );
}
