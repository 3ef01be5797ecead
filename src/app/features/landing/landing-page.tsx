import { useEffect } from 'react';
import { Link, useLocation } from 'react-router';
import { useAccountModals } from '../auth/account-modals';
import { useAuth } from '../auth/auth-context';

/** The service areas of spec section 2 (their pages come with the sidebar layout). */
const SERVICES = [
  'Finance',
  'Drug discovery',
  'Material science',
  'Power systems',
  'Optimization',
  'Other algorithms',
];

const STEPS = [
  'Input dataset',
  'Application options',
  'Choose existing classical or quantum models',
  'Training customizations',
  'Output results',
  'Training and metric results',
  'Output interpretations',
];

/** The visitor landing page (the full marketing page and the application lists come with the shell). */
export function LandingPage() {
  const { user } = useAuth();
  const { open } = useAccountModals();
  const { hash } = useLocation();
  // The visitor menu's Services and Overview are scroll links: /#services, /#overview.
  useEffect(() => {
    if (hash) document.getElementById(hash.slice(1))?.scrollIntoView({ behavior: 'smooth' });
  }, [hash]);
  return (
    <section className="page landing">
      <div className="hero" id="overview">
        <h1>Quantum and classical machine learning, without writing code</h1>
        <p className="lead">
          Build, run and compare models for stock price prediction, portfolio optimization, fraud detection,
          demand forecasting and brain tumor MRI classification — on real quantum simulators and devices.
        </p>
        {user?.roles.includes('admin') ? (
          <Link className="button primary large" to="/admin/diagnostics">
            Run the quantum self-test
          </Link>
        ) : user ? (
          <Link className="button primary large" to="/profile">
            Go to my dashboard
          </Link>
        ) : (
          <button className="button primary large" onClick={() => open('register')}>
            Create an account
          </button>
        )}
      </div>
      <ol className="workflow">
        {STEPS.map((step, index) => (
          <li key={step}>
            <span className="step-number">{index + 1}</span>
            {step}
          </li>
        ))}
      </ol>
      <section id="services" className="services">
        <h2>Services</h2>
        <ul className="service-grid">
          {SERVICES.map((name) => (
            <li key={name} className="card">
              <strong>{name}</strong>
              <span className="muted">Under Development</span>
            </li>
          ))}
        </ul>
      </section>
    </section>
  );
}
