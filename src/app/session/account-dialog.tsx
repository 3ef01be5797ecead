import type { FormEvent, ReactNode } from 'react';
import { useModalFocus } from '../components/use-modal-focus';

/**
 * The shell of the Login and Register dialogs: a backdrop that closes on click, and a form that is
 * the dialog itself (labelled by its title; the browser's own validation is off, the engine's rules
 * speak instead). Keyboard: focus moves in, Tab stays inside, Escape closes (useModalFocus).
 */
export function AccountDialog({
  id,
  title,
  onClose,
  onSubmit,
  children,
}: {
  id: string;
  title: string;
  onClose: () => void;
  onSubmit: (event: FormEvent) => void;
  children: ReactNode;
}) {
  const titleId = `${id}-title`;
  const ref = useModalFocus<HTMLFormElement>(onClose);
  return (
    <div className="modal-backdrop" role="presentation" onClick={onClose}>
      <form
        ref={ref}
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onClick={(e) => e.stopPropagation()}
        onSubmit={onSubmit}
        noValidate
      >
        <h2 id={titleId}>{title}</h2>
        {children}
      </form>
    </div>
  );
}
