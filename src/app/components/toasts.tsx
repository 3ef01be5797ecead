import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

/** Toasts close themselves after 5 s (spec section 9). */
export const TOAST_MS = 5000;

type Tone = 'success' | 'error';
interface Toast {
  id: number;
  tone: Tone;
  text: string;
}
type Notify = (tone: Tone, text: string) => void;

const ToastContext = createContext<Notify | null>(null);

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const notify = useCallback<Notify>((tone, text) => {
    const id = nextId.current++;
    setToasts((shown) => [...shown, { id, tone, text }]);
    setTimeout(() => setToasts((shown) => shown.filter((toast) => toast.id !== id)), TOAST_MS);
  }, []);
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

/** notify('success' | 'error', text) */
export function useToast(): Notify {
  const notify = useContext(ToastContext);
  if (!notify) throw new Error('useToast needs a ToastProvider');
  return notify;
}
