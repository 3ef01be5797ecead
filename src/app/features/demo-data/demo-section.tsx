import type { ReactNode } from 'react';

/** A landing demo section: its heading (which names the section) and a one-line lead. */
export function DemoSection({
  id,
  title,
  lead,
  children,
}: {
  id: string;
  title: string;
  lead: string;
  children: ReactNode;
}) {
  return (
    <section className="demo-section" id={id} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p className="muted">{lead}</p>
      {children}
    </section>
  );
}
