import { lazy, Suspense, useState, type ReactNode } from 'react';
import {
  createBrowserRouter,
  createRoutesFromElements,
  Outlet,
  Route,
  RouterProvider,
  useLocation,
  useRouteError,
} from 'react-router';
import { ErrorBoundary } from './components/error-boundary';
import { MobileGuard } from './components/mobile-guard';
import { NotFoundPage } from './components/not-found-page';
import { ToastProvider } from './components/toasts';
import { TopBar } from './components/top-bar';
import { ApprovedAccountPage } from './features/account-status/approved-account-page';
import { EmailVerifiedPage } from './features/account-status/email-verified-page';
import { OAuthRedirectPage } from './features/account-status/oauth-redirect-page';
import { PendingVerifyPage } from './features/account-status/pending-verify-page';
import { UnauthorizedPage } from './features/account-status/unauthorized-page';
import { AccessGate } from './session/access-gate';
import { AccountModalsProvider } from './session/account-modals';
import { AuthProvider } from './session/auth-context';
import { usePageView } from './tracking/use-page-view';

// Heavy pages load on demand: the schema gallery carries the engine, the form renderer and React
// Flow; the self-test page carries ApexCharts; the account forms carry the engine's validator.
const LandingPage = lazy(() => import('./pages/landing-page').then((m) => ({ default: m.LandingPage })));
const ProfilePage = lazy(() => import('./pages/profile-page').then((m) => ({ default: m.ProfilePage })));
const SchemaGalleryPage = lazy(() =>
  import('./features/schema-gallery/schema-gallery-page').then((m) => ({ default: m.SchemaGalleryPage })),
);
const SelfTestPage = lazy(() =>
  import('./features/diagnostics/self-test-page').then((m) => ({ default: m.SelfTestPage })),
);
const ProfileEditPage = lazy(() =>
  import('./features/profile/profile-edit-page').then((m) => ({ default: m.ProfileEditPage })),
);
const SettingsPage = lazy(() =>
  import('./features/profile/settings-page').then((m) => ({ default: m.SettingsPage })),
);
const WaitingApprovalPage = lazy(() =>
  import('./features/account-status/waiting-approval-page').then((m) => ({ default: m.WaitingApprovalPage })),
);
const ApplicationDetailPage = lazy(() =>
  import('./features/applications/application-detail-page').then((m) => ({
    default: m.ApplicationDetailPage,
  })),
);
const OutputDetailPage = lazy(() =>
  import('./features/workspace/outputs/detail/output-detail-page').then((m) => ({
    default: m.OutputDetailPage,
  })),
);
const WorkspacePage = lazy(() =>
  import('./features/workspace/workspace-page').then((m) => ({ default: m.WorkspacePage })),
);
const ExamplesPage = lazy(() =>
  import('./features/examples/examples-page').then((m) => ({ default: m.ExamplesPage })),
);
const ContactPage = lazy(() =>
  import('./features/contact/contact-page').then((m) => ({ default: m.ContactPage })),
);
const ServicesLayout = lazy(() =>
  import('./features/services/services-layout').then((m) => ({ default: m.ServicesLayout })),
);
const ServicesHomePage = lazy(() =>
  import('./features/services/services-home-page').then((m) => ({ default: m.ServicesHomePage })),
);
const ServicePage = lazy(() =>
  import('./features/services/service-page').then((m) => ({ default: m.ServicePage })),
);
const AdminPage = lazy(() => import('./features/admin/admin-page').then((m) => ({ default: m.AdminPage })));
const AnalyticsPage = lazy(() =>
  import('./features/analytics/analytics-page').then((m) => ({ default: m.AnalyticsPage })),
);
const loading = <p className="muted">Loading…</p>;
const onDemand = (page: ReactNode) => <Suspense fallback={loading}>{page}</Suspense>;
/** Spec section 2's protected group: the access gate runs before the page. */
const gated = (page: ReactNode) => <AccessGate>{onDemand(page)}</AccessGate>;

/** Everything around a page: account modals, the mobile guard, the top bar; tracks each page view once. */
function Shell() {
  usePageView(useLocation().pathname);
  return (
    <AccountModalsProvider>
      <MobileGuard>
        <TopBar />
        <main className="main">
          <Outlet />
        </main>
      </MobileGuard>
    </AccountModalsProvider>
  );
}

/** A data router catches render errors itself; hand them on to the app's ErrorBoundary ('Something went wrong!'). */
function RenderErrorToBoundary(): never {
  throw useRouteError();
}

const routes = createRoutesFromElements(
  <Route element={<Shell />} errorElement={<RenderErrorToBoundary />}>
    <Route path="/" element={onDemand(<LandingPage />)} />
    <Route path="/profile" element={gated(<ProfilePage />)} />
    <Route path="/profile/edit" element={gated(<ProfileEditPage />)} />
    <Route path="/profile/settings" element={gated(<SettingsPage />)} />
    <Route path="/setting" element={gated(<SettingsPage />)} />
    <Route path="/contact" element={gated(<ContactPage />)} />
    <Route path="/applications/:appId" element={gated(<ApplicationDetailPage />)} />
    <Route path="/applications/:appId/outputs/:outputId" element={gated(<OutputDetailPage />)} />
    <Route path="/development/:problemId/:appId/:appName" element={gated(<WorkspacePage />)} />
    <Route path="/developmentbio/:problemId/:appId/:appName" element={gated(<WorkspacePage />)} />
    <Route path="/examples" element={onDemand(<ExamplesPage />)} />
    <Route path="/services" element={onDemand(<ServicesLayout />)}>
      <Route index element={onDemand(<ServicesHomePage />)} />
      <Route path=":service" element={onDemand(<ServicePage />)} />
    </Route>
    <Route path="/pending-verify" element={<PendingVerifyPage />} />
    <Route path="/email-verified" element={<EmailVerifiedPage />} />
    <Route path="/waiting-admin-approval" element={onDemand(<WaitingApprovalPage />)} />
    <Route path="/approved-account" element={<ApprovedAccountPage />} />
    <Route path="/unauthorized" element={<UnauthorizedPage />} />
    <Route path="/oauth2/redirect" element={<OAuthRedirectPage />} />
    <Route path="/admin" element={gated(<AdminPage />)} />
    <Route path="/admin/analytics" element={gated(<AnalyticsPage />)} />
    <Route path="/admin/diagnostics" element={onDemand(<SelfTestPage />)} />
    <Route path="/schemas" element={onDemand(<SchemaGalleryPage />)} />
    <Route path="/error/404" element={<NotFoundPage />} />
    <Route path="*" element={<NotFoundPage />} />
  </Route>,
);

/**
 * A data router (createBrowserRouter), not <BrowserRouter>: the workspace's leave guard blocks in-app
 * navigation with useBlocker, which only data routers provide (see use-leave-guard.ts). One router per
 * mounted App, created on first render.
 */
export function App() {
  const [router] = useState(() => createBrowserRouter(routes));
  return (
    <ErrorBoundary>
      <ToastProvider>
        <AuthProvider>
          <RouterProvider router={router} />
        </AuthProvider>
      </ToastProvider>
    </ErrorBoundary>
  );
}
