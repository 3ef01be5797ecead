import { NavLink } from 'react-router';
import { UserAvatar } from '../../components/user-avatar';
import type { CurrentUser } from '../../session/api/current-user';

/** The profile sidebar: avatar, name, e-mail, My Applications and My Profile. */
export function ProfileSidebar({ user }: { user: CurrentUser }) {
  return (
    <aside className="profile-sidebar card">
      <UserAvatar name={user.name} imageUrl={user.image_url} size={88} />
      <p className="profile-name">{user.name}</p>
      <p className="muted profile-email">{user.email}</p>
      <nav className="profile-links" aria-label="Profile">
        <NavLink to="/profile" end>
          My Applications
        </NavLink>
        <NavLink to="/profile/edit">My Profile</NavLink>
        <NavLink to="/profile/settings">Settings</NavLink>
      </nav>
    </aside>
  );
}
