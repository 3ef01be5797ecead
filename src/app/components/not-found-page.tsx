import { Link } from 'react-router';

/** Spec section 2: any unknown path, and /error/404 (an application that failed to load). */
export function NotFoundPage() {
  return (
    <section className="page centered">
      <h1 className="big">404</h1>
      <p className="lead">Looks like our services are currently offline</p>
      <Link className="button primary" to="/">
        Back to Home
      </Link>
    </section>
  );
}
