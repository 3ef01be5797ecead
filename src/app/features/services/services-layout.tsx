import { NavLink, Outlet } from 'react-router';
import { SERVICES } from './service-catalog';
import './services.css';

/** The sidebar layout of spec section 2: Home, the six services, Outputs; the page beside it. */
export function ServicesLayout() {
  const links = [
    { to: '/services', label: 'Home', end: true },
    ...SERVICES.map((service) => ({ to: `/services/${service.slug}`, label: service.label, end: false })),
    { to: '/services/outputs', label: 'Outputs', end: false },
  ];
  return (
    <div className="services-layout">
      <nav className="services-sidebar" aria-label="Services">
        <p className="services-sidebar-title">Services</p>
        {links.map((link) => (
          <NavLink key={link.to} to={link.to} end={link.end}>
            {link.label}
          </NavLink>
        ))}
      </nav>
      <div className="services-main">
        <Outlet />
      </div>
    </div>
  );
}
