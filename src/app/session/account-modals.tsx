import { createContext, lazy, Suspense, useContext, useMemo, useState, type ReactNode } from 'react';
import { useAuth } from './auth-context';

// The dialogs validate with the engine (the account forms' rules): loaded when one first opens, so
// the first view of any page does not wait for the validator.
const LoginModal = lazy(() => import('./login-modal').then((m) => ({ default: m.LoginModal })));
const RegisterModal = lazy(() => import('./register-modal').then((m) => ({ default: m.RegisterModal })));

type Which = 'login' | 'register';
interface AccountModals {
  open: (which: Which) => void;
}

const ModalsContext = createContext<AccountModals | null>(null);

/** Holds the Login and Register dialogs so the top bar and any page (a card, /approved-account) can open them. */
export function AccountModalsProvider({ children }: { children: ReactNode }) {
  const { refresh } = useAuth();
  const [which, setWhich] = useState<Which | null>(null);
  const value = useMemo(() => ({ open: setWhich }), []);
  const close = () => setWhich(null);
  return (
    <ModalsContext.Provider value={value}>
      {children}
      <Suspense fallback={null}>
        {which === 'login' && (
          <LoginModal
            onClose={close}
            onSignedIn={() => void refresh()}
            onRegister={() => setWhich('register')}
          />
        )}
        {which === 'register' && <RegisterModal onClose={close} onLogin={() => setWhich('login')} />}
      </Suspense>
    </ModalsContext.Provider>
  );
}

export function useAccountModals(): AccountModals {
  const modals = useContext(ModalsContext);
  if (!modals) throw new Error('useAccountModals needs an AccountModalsProvider');
  return modals;
}
