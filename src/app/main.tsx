import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { installPrecompiledValidators } from '../engine';
import { PRECOMPILED_VALIDATORS } from '../generated/validators';
import './styles/app.css';

// The CSP has no 'unsafe-eval': the engine validates with the validators codegen compiled.
installPrecompiledValidators(PRECOMPILED_VALIDATORS);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
