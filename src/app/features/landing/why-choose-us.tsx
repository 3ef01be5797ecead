/** Spec section 1: the four features of the why-choose-us section. */
export const FEATURES = [
  {
    title: 'Custom model training',
    icon: '⚙',
    text: 'Train on your own data with your own settings: epochs, learning rate, circuit depth and the quantum backend.',
  },
  {
    title: 'Ready-made models',
    icon: '▣',
    text: 'Start from tuned classical and quantum models for each problem instead of an empty page.',
  },
  {
    title: 'Hybrid model support',
    icon: '⟨ψ⟩',
    text: 'Combine classical layers with quantum circuits and compare both on the same data.',
  },
  {
    title: 'No-code configuration',
    icon: '☰',
    text: 'Every step is a form with checked limits: no scripts, no notebooks, no setup.',
  },
] as const;

export function WhyChooseUs() {
  return (
    <section className="landing-section" aria-labelledby="why-title">
      <h2 id="why-title">Why choose us</h2>
      <p className="muted section-lead">Machine learning on quantum hardware, made practical.</p>
      <ul className="feature-grid">
        {FEATURES.map((feature) => (
          <li key={feature.title} className="feature">
            <span className="feature-icon" aria-hidden="true">
              {feature.icon}
            </span>
            <h3>{feature.title}</h3>
            <p className="muted">{feature.text}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
