import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <section className="page centered">
      <h1 className="big">404</h1>
      <p>Looks like our services are currently offline</p>
      <Link className="button primary" to="/">
        Back to Home
      </Link>
    </section>
  );
}
