import { useParams } from 'react-router';
import { NotFoundPage } from '../../components/not-found-page';
import { SERVICE_CARD_GROUPS, serviceBySlug } from './service-catalog';
import { ServiceOutputs } from './service-outputs';
import { UnderDevelopmentAlert, useUnderDevelopment } from './under-development';

/** /services/:service — one service's landing page, or Outputs; an unknown name is the 404 page. */
export function ServicePage() {
  const { service: slug } = useParams();
  if (slug === 'outputs') return <ServiceOutputs />;
  const service = serviceBySlug(slug);
  if (!service) return <NotFoundPage />;
  return <ServiceLanding key={service.slug} label={service.label} intro={service.intro} />;
}

function ServiceLanding({ label, intro }: { label: string; intro: string }) {
  const alert = useUnderDevelopment();
  return (
    <section className="page service-page">
      <header className="page-header">
        <h1>{label}</h1>
        <p className="muted">{intro}</p>
      </header>
      <UnderDevelopmentAlert shown={alert.shown} onClose={alert.hide} />
      {SERVICE_CARD_GROUPS.map((group) => (
        <section key={group.title} className="service-group" aria-label={group.title}>
          <h2>{group.title}</h2>
          <ul className="service-cards">
            {group.cards.map((card) => (
              <li key={card.name}>
                <button type="button" className="service-card" onClick={alert.show}>
                  <strong>{card.name}</strong>
                  <span className="muted">{card.text}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}
