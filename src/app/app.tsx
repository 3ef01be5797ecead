import { lazy, Suspense } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { ErrorBoundary } from './components/error-boundary';
import { NotFoundPage } from './components/not-found-page';
import { TopBar } from './components/top-bar';
import { AuthProvider } from './features/auth/auth-context';
import { LandingPage } from './features/landing/landing-page';

// Heavy pages load on demand: the schema gallery carries the engine, the form renderer and React
// Flow; the self-test page carries ApexCharts.
const SchemaGalleryPage = lazy(() =>
  import('./features/schema-gallery/schema-gallery-page').then((m) => ({ default: m.SchemaGalleryPage })),
);
const SelfTestPage = lazy(() =>
  import('./features/diagnostics/self-test-page').then((m) => ({ default: m.SelfTestPage })),
);
const loading = <p className="muted">Loading…</p>;

export function App() {
  return (
    <ErrorBoundary>
      <AuthProvider>
        <BrowserRouter>
          <TopBar />
          <main className="main">
            <Routes>
              <Route path="/" element={<LandingPage />} />
              <Route
                path="/admin/diagnostics"
                element={
                  <Suspense fallback={loading}>
                    <SelfTestPage />
                  </Suspense>
                }
              />
              <Route
                path="/schemas"
                element={
                  <Suspense fallback={loading}>
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
