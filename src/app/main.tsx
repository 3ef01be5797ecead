import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { installServedValidators } from '../renderers/served-validators';
import './styles/app.css';

const root = createRoot(document.getElementById('root')!);
try {
  // The CSP has no 'unsafe-eval': the engine validates with the validators the server wrote from its
  // schema files, installed before anything is drawn (the sign-in dialogs validate too).
  await installServedValidators();
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
} catch (error) {
  // Without them every form would try to compile under the CSP: say what is wrong instead.
  root.render(<p role="alert">{error instanceof Error ? error.message : String(error)}</p>);
}
