import { useEffect, useRef, useState } from 'react';

/** An application's menu (section 2: "Each application has a menu with a delete entry"). */
export function RowMenu({ appName, onDelete }: { appName: string; onDelete: () => void }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    box.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus();
    const outside = (event: MouseEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', outside);
    return () => document.removeEventListener('mousedown', outside);
  }, [open]);

  return (
    // The menu sits in a clickable row or card: its clicks and keys must not open the application.
    <div
      className="row-menu"
      ref={box}
      onClick={(event) => event.stopPropagation()}
      onKeyDown={(event) => {
        event.stopPropagation();
        if (event.key === 'Escape' && open) {
          setOpen(false);
          trigger.current?.focus();
        }
      }}
    >
      <button
        ref={trigger}
        type="button"
        className="row-menu-trigger"
        aria-label={`Actions for ${appName}`}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((shown) => !shown)}
      >
        <span aria-hidden="true">⋮</span>
      </button>
      {open && (
        <div className="row-menu-list" role="menu" aria-label={`Actions for ${appName}`}>
          <button
            type="button"
            role="menuitem"
            className="danger"
            onClick={() => {
              setOpen(false);
              onDelete();
            }}
          >
            Delete
          </button>
        </div>
      )}
    </div>
  );
}
