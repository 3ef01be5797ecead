import { Link } from 'react-router';
import { useAuth } from '../auth/auth-context';

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
  return (
    <section className="page landing">
      <div className="hero">
        <h1>Quantum and classical machine learning, without writing code</h1>
        <p className="lead">
          Build, run and compare models for stock price prediction, portfolio optimization, fraud detection,
          demand forecasting and brain tumor MRI classification — on real quantum simulators and devices.
        </p>
        {user?.roles.includes('admin') ? (
          <Link className="button primary large" to="/admin/diagnostics">
            Run the quantum self-test
          </Link>
        ) : (
          <span className="muted">Log in to start.</span>
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
    </section>
  );
}
