import { useState } from 'react';
import { useAuth } from '../auth/auth-context';
import { ProfileSidebar } from './profile-sidebar';

const TABS = ['Financial Applications', 'Brain Tumor application'] as const;

/**
 * /profile, the dashboard: greeting and profile sidebar. The applications list (tabs, search,
 * Create Application, pagination) is issue #9; until it lands the page says so instead of
 * showing made-up rows.
 */
export function ProfilePage() {
  const { user } = useAuth();
  const [tab, setTab] = useState<(typeof TABS)[number]>(TABS[0]);
  if (!user) return null;
  return (
    <section className="page profile-layout">
      <ProfileSidebar user={user} />
      <div className="profile-main">
        <header className="page-header">
          <h1>Hello, {user.name}</h1>
          <p className="muted">My Applications</p>
        </header>
        <div className="tabs" role="tablist">
          {TABS.map((name) => (
            <button
              key={name}
              role="tab"
              aria-selected={tab === name}
              className={tab === name ? 'tab active' : 'tab'}
              onClick={() => setTab(name)}
            >
              {name}
            </button>
          ))}
        </div>
        <div className="card empty-state" role="tabpanel">
          <h2>Applications are not available yet</h2>
          <p className="muted">
            Creating, listing and running applications come with the next release of QML Studio. Your account
            is ready: you can already complete your profile and settings.
          </p>
        </div>
      </div>
    </section>
  );
}
