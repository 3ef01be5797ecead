import { useAuth } from '../session/auth-context';
import { ApplicationsBrowser } from '../features/applications/applications-browser';
import { ProfileSidebar } from '../features/profile/profile-sidebar';

/** /profile, the dashboard (spec section 2): greeting, profile sidebar and the user's applications. */
export function ProfilePage() {
  const { user } = useAuth();
  if (!user) return null;
  return (
    <section className="page profile-layout">
      <ProfileSidebar user={user} />
      <div className="profile-main">
        <header className="page-header">
          <h1>Hello, {user.name}</h1>
        </header>
        <ApplicationsBrowser title="My Applications" />
      </div>
    </section>
  );
}
