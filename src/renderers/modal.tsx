import { useEffect, useRef, type ReactNode } from 'react';

interface ModalProps {
  title: string;
  /** Used for the dialog's id and its title's id. */
  id: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
}

/** A small accessible dialog: labelled by its title, closes on Escape and on the backdrop. */
export function Modal({ title, id, onClose, children, footer }: ModalProps) {
  const dialogRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    dialogRef.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, [onClose]);

  return (
    <div className="qs-modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className="qs-modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        id={id}
        ref={dialogRef}
        tabIndex={-1}
      >
        <header className="qs-modal-header">
          <h3 id={`${id}-title`}>{title}</h3>
          <button type="button" className="qs-icon-button" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        <div className="qs-modal-body">{children}</div>
        {footer && <footer className="qs-modal-footer">{footer}</footer>}
      </div>
    </div>
  );
}
