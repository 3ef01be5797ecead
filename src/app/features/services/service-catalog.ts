/**
 * The service pages of spec section 2 (/services and its children, in the sidebar's order) and the
 * cards they share. The sidebar's last entry, Outputs, is a page of its own (service-outputs.tsx).
 */
export const SERVICES = [
  {
    slug: 'finance',
    label: 'Financial Service',
    intro: 'Quantum and classical models for markets: prices, portfolios, risk and fraud.',
  },
  {
    slug: 'drug',
    label: 'Drug Discovery Service',
    intro: 'Molecular property prediction and screening with quantum-enhanced models.',
  },
  {
    slug: 'material',
    label: 'Materials Service',
    intro: 'Simulating and predicting the properties of new materials.',
  },
  {
    slug: 'power-system',
    label: 'Power System Service',
    intro: 'Load forecasting and grid optimization for power systems.',
  },
  {
    slug: 'optimization',
    label: 'Optimization Service',
    intro: 'Combinatorial optimization with QAOA, VQE and classical solvers.',
  },
  {
    slug: 'other-algorithms',
    label: 'Other Algorithms',
    intro: 'Further quantum algorithms as they become available.',
  },
] as const;

export type Service = (typeof SERVICES)[number];

export const serviceBySlug = (slug: string | undefined): Service | undefined =>
  SERVICES.find((service) => service.slug === slug);

/** Spec section 2: every service page shows these two groups of cards. */
export const SERVICE_CARD_GROUPS = [
  {
    title: 'Getting Started',
    cards: [
      { name: 'Regression', text: 'Fit continuous targets with classical and variational models.' },
      { name: 'Stock Price Prediction', text: 'Forecast prices from historical series.' },
      { name: 'Risk Assessment', text: 'Score the risk of positions and counterparties.' },
    ],
  },
  {
    title: 'Classification',
    cards: [
      { name: 'Portfolio Optimization', text: 'Choose assets for a risk appetite and a budget.' },
      { name: 'Fraud Detection', text: 'Flag fraudulent transactions.' },
      { name: 'Money Laundry', text: 'Detect money-laundering patterns in transfers.' },
    ],
  },
] as const;

/** Spec section 2: the services home page's showcase, each opening its service page. */
export const SHOWCASE = [
  {
    name: 'Quantum Optimization',
    slug: 'optimization',
    text: 'Solve scheduling, routing and allocation problems with QAOA and VQE.',
  },
  {
    name: 'Stock Price Prediction',
    slug: 'finance',
    text: 'Hybrid quantum networks that forecast prices from historical series.',
  },
  {
    name: 'Drug Molecule Prediction',
    slug: 'drug',
    text: 'Predict the properties of candidate molecules before the lab does.',
  },
] as const;

/** Spec section 9: alerts hide themselves after 5 s. */
export const ALERT_MS = 5000;
export const UNDER_DEVELOPMENT = 'Under Development';
