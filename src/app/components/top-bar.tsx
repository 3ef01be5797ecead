import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useAuth } from '../features/auth/auth-context';
import { LoginModal } from '../features/auth/login-modal';

const initials = (name: string) =>
  name
    .split(/[\s_]+/)
    .map((part) => part[0]?.toUpperCase() ?? '')
    .join('')
    .slice(0, 2);

/** The top bar: logo, menu, Login or the avatar menu; solid after 50 px of scrolling. */
export function TopBar() {
  const { user, refresh, logout } = useAuth();
  const navigate = useNavigate();
  const [loginOpen, setLoginOpen] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const [solid, setSolid] = useState(false);

  useEffect(() => {
    const onScroll = () => setSolid(window.scrollY > 50);
    window.addEventListener('scroll', onScroll);
    return () => window.removeEventListener('scroll', onScroll);
  }, []);

  return (
    <header className={`top-bar${solid ? ' solid' : ''}`}>
      <Link to="/" className="logo">
        <span className="logo-mark">⟨ψ⟩</span> QML Studio
      </Link>
      <nav className="menu">
        <Link to="/">Home</Link>
        {user?.roles.includes('admin') && <Link to="/admin/diagnostics">Diagnostics</Link>}
        {user?.roles.includes('admin') && <Link to="/schemas">Schemas</Link>}
      </nav>
      <div className="top-actions">
        {user ? (
          <div className="avatar-menu">
            <button className="avatar" aria-label="Account menu" onClick={() => setMenuOpen((open) => !open)}>
              {initials(user.name)}
            </button>
            {menuOpen && (
              <div className="dropdown" role="menu">
                <p>Hello, {user.name}</p>
                <button
                  role="menuitem"
                  onClick={async () => {
                    setMenuOpen(false);
                    await logout();
                    navigate('/');
                  }}
                >
                  Log Out
                </button>
              </div>
            )}
          </div>
        ) : (
          <button className="button primary" onClick={() => setLoginOpen(true)}>
            Login
          </button>
        )}
      </div>
      {loginOpen && (
        <LoginModal
          onClose={() => setLoginOpen(false)}
          onSuccess={() => {
            void refresh();
            setLoginOpen(false);
          }}
        />
      )}
    </header>
  );
}
