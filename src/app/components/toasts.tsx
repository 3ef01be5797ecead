import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

/** Toasts close themselves after 5 s (spec section 9). */
export const TOAST_MS = 5000;

type Tone = 'success' | 'error';
/** A button inside a toast (e.g. the run toast's 'Go to output tab'); clicking it also closes the toast. */
export interface ToastAction {
  label: string;
  onClick: () => void;
}
interface Toast {
  id: number;
  tone: Tone;
  text: string;
  action?: ToastAction;
}
type Notify = (tone: Tone, text: string, action?: ToastAction) => void;

const ToastContext = createContext<Notify | null>(null);

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const close = useCallback(
    (id: number) => setToasts((shown) => shown.filter((toast) => toast.id !== id)),
    [],
  );
  const notify = useCallback<Notify>(
    (tone, text, action) => {
      const id = nextId.current++;
      setToasts((shown) => [...shown, { id, tone, text, action }]);
      setTimeout(() => close(id), TOAST_MS);
    },
    [close],
  );
  const value = useMemo(() => notify, [notify]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" aria-live="polite">
        {toasts.map((toast) => (
          <div
            key={toast.id}
            className={`toast ${toast.tone}`}
            role={toast.tone === 'error' ? 'alert' : 'status'}
          >
            {toast.text}
            {toast.action && (
              <button
                type="button"
                className="toast-action"
                onClick={() => {
                  close(toast.id);
                  toast.action?.onClick();
                }}
              >
                {toast.action.label}
              </button>
            )}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

/** notify, or undefined outside a ToastProvider (providers that may run without one, in tests). */
export function useOptionalToast(): Notify | undefined {
  return useContext(ToastContext) ?? undefined;
}

/** notify('success' | 'error', text, action?) */
export function useToast(): Notify {
  const notify = useContext(ToastContext);
  if (!notify) throw new Error('useToast needs a ToastProvider');
  return notify;
}
