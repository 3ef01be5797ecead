import { lazy, Suspense, useEffect } from 'react';
import { Link, useLocation } from 'react-router';
import { useAccountModals } from '../session/account-modals';
import { useAuth } from '../session/auth-context';
import { ApplicationCards } from '../features/landing/application-cards';
import { HeroCircuit } from '../features/landing/hero-circuit';
import { WhyChooseUs } from '../features/landing/why-choose-us';
import { WorkflowDiagram } from '../features/landing/workflow-diagram';
import '../features/landing/landing.css';

// The demo sections carry their charts: loaded after the page, so the first view does not wait.
const PerformanceComparison = lazy(() =>
  import('../features/demo-data/performance-comparison').then((m) => ({ default: m.PerformanceComparison })),
);
// The applications browser carries the table library: its own chunk, loaded for signed-in users only.
const ApplicationsBrowser = lazy(() =>
  import('../features/applications/applications-browser').then((m) => ({ default: m.ApplicationsBrowser })),
);
// The live demo carries its chart and socket: loaded after the page too.
const StockDemo = lazy(() =>
  import('../features/landing/stock-demo/stock-demo').then((m) => ({ default: m.StockDemo })),
);
const ResultInterpretation = lazy(() =>
  import('../features/demo-data/result-interpretation').then((m) => ({ default: m.ResultInterpretation })),
);

/** Spec section 2: / is the landing page for visitors and the 'All Applications' view when signed in. */
export function LandingPage() {
  const { user, loading } = useAuth();
  const { hash } = useLocation();
  // The visitor menu's Services and Overview are scroll links: /#services, /#overview.
  useEffect(() => {
    if (hash) document.getElementById(hash.slice(1))?.scrollIntoView({ behavior: 'smooth' });
  }, [hash, user, loading]);
  if (loading) return <p className="muted">Loading…</p>;
  return user ? <SignedInHome name={user.name} /> : <VisitorLanding />;
}

/**
 * Signed in: 'All Applications', then the same application cards as the visitor page under 'Start a
 * new application' (a card's Start Now creates the application and opens its workspace).
 */
function SignedInHome({ name }: { name: string }) {
  return (
    <section className="page landing">
      <header className="page-header">
        <h1>Welcome back, {name}</h1>
      </header>
      <Suspense fallback={<p className="muted">Loading…</p>}>
        <ApplicationsBrowser title="All Applications" />
      </Suspense>
      <section className="landing-section" aria-labelledby="start-title">
        <h2 id="start-title">Start a new application</h2>
        <ApplicationCards />
      </section>
      <p className="muted landing-contact">
        Questions or feedback? <Link to="/contact">Contact us</Link>
      </p>
    </section>
  );
}

function VisitorLanding() {
  const { open } = useAccountModals();
  return (
    <section className="page landing">
      <div className="landing-hero">
        <div className="landing-hero-text">
          <p className="eyebrow">Quantum and classical machine learning</p>
          <h1>Build, run and compare predictive models without writing code</h1>
          <p className="lead">
            Stock price prediction, portfolio optimization, fraud detection, demand forecasting and brain
            tumor MRI classification, on classical models, quantum simulators and real quantum devices.
          </p>
          <div className="hero-actions">
            <button type="button" className="button primary large" onClick={() => open('login')}>
              Start Now
            </button>
            <Link className="button secondary large" to="/examples">
              Browse examples
            </Link>
          </div>
        </div>
        <HeroCircuit />
      </div>

      <section id="overview" className="landing-section" aria-labelledby="overview-title">
        <h2 id="overview-title">How it works</h2>
        <p className="muted section-lead">From a dataset to an interpreted result in seven steps.</p>
        <WorkflowDiagram />
      </section>

      <section id="services" className="landing-section" aria-labelledby="services-title">
        <div className="section-heading">
          <div>
            <h2 id="services-title">Applications</h2>
            <p className="muted section-lead">Pick a problem and start from a ready-made model.</p>
          </div>
          <Link to="/services">All services →</Link>
        </div>
        <ApplicationCards />
      </section>

      <Suspense fallback={null}>
        <StockDemo />
        <PerformanceComparison />
        <ResultInterpretation />
      </Suspense>

      <WhyChooseUs />
    </section>
  );
}
