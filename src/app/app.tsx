import { lazy, Suspense } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { ErrorBoundary } from './components/error-boundary';
import { NotFoundPage } from './components/not-found-page';
import { TopBar } from './components/top-bar';
import { AuthProvider } from './features/auth/auth-context';
import { SelfTestPage } from './features/diagnostics/self-test-page';
import { LandingPage } from './features/landing/landing-page';

// The schema gallery carries the engine, the form renderer and React Flow: loaded on demand.
const SchemaGalleryPage = lazy(() =>
  import('./features/schema-gallery/schema-gallery-page').then((m) => ({ default: m.SchemaGalleryPage })),
);

export function App() {
  return (
    <ErrorBoundary>
      <AuthProvider>
        <BrowserRouter>
          <TopBar />
          <main className="main">
            <Routes>
              <Route path="/" element={<LandingPage />} />
              <Route path="/admin/diagnostics" element={<SelfTestPage />} />
              <Route
                path="/schemas"
                element={
                  <Suspense fallback={<p className="muted">Loading…</p>}>
                    <SchemaGalleryPage />
                  </Suspense>
                }
              />
              <Route path="/error/404" element={<NotFoundPage />} />
              <Route path="*" element={<NotFoundPage />} />
            </Routes>
          </main>
        </BrowserRouter>
      </AuthProvider>
    </ErrorBoundary>
  );
}
