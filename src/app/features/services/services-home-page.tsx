import { Link } from 'react-router';
import { MyApplicationLinks } from './application-links';
import { SHOWCASE } from './service-catalog';

/** Spec section 2: how many of the user's latest applications the Recent Project box lists. */
export const RECENT_COUNT = 3;
export const SIGN_IN_FOR_RECENT = 'Sign in to view your recent projects.';

/** /services: intro, the showcase of three services and the Recent Project box. */
export function ServicesHomePage() {
  return (
    <section className="page services-home">
      <header className="page-header">
        <h1>Quantum services</h1>
        <p className="muted">
          Ready-made quantum and classical machine-learning services for finance, drug discovery, materials,
          power systems and optimization. Pick a service on the left or start from one below.
        </p>
      </header>
      <div className="services-home-grid">
        <ul className="showcase" aria-label="Showcase">
          {SHOWCASE.map((item) => (
            <li key={item.name}>
              <Link className="showcase-card" to={`/services/${item.slug}`}>
                <strong>{item.name}</strong>
                <span className="muted">{item.text}</span>
                <span className="showcase-more" aria-hidden="true">
                  Learn more →
                </span>
              </Link>
            </li>
          ))}
        </ul>
        <RecentProject />
      </div>
    </section>
  );
}

function RecentProject() {
  return (
    <aside className="recent-project card" aria-labelledby="recent-title">
      <h2 id="recent-title">Recent Project</h2>
      <MyApplicationLinks signInMessage={SIGN_IN_FOR_RECENT} limit={RECENT_COUNT} />
    </aside>
  );
}
