import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useAccountModals } from '../session/account-modals';
import { useAuth } from '../session/auth-context';
import { UserAvatar } from './user-avatar';

/** Spec section 9: the bar turns solid past this scroll offset. */
export const SOLID_AFTER_PX = 50;

/** The top bar: logo, the visitor or signed-in menu, Login and Register or the avatar menu. */
export function TopBar() {
  const { user, logout } = useAuth();
  const { open } = useAccountModals();
  const navigate = useNavigate();
  const [menuOpen, setMenuOpen] = useState(false);
  const [solid, setSolid] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const onScroll = () => setSolid(window.scrollY > SOLID_AFTER_PX);
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);

  useEffect(() => {
    if (!menuOpen) return;
    const onDown = (event: MouseEvent) => {
      if (!menuRef.current?.contains(event.target as Node)) setMenuOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [menuOpen]);

  const isAdmin = user?.roles.includes('admin') ?? false;
  return (
    <header className={`top-bar${solid ? ' solid' : ''}`}>
      <Link to="/" className="logo">
        <span className="logo-mark">⟨ψ⟩</span> QML Studio
      </Link>
      <nav className="menu" aria-label="Main">
        {user ? (
          <>
            <Link to="/profile">Dashboard</Link>
            <Link to="/">All Applications</Link>
            <Link to="/examples">Examples</Link>
          </>
        ) : (
          <>
            <Link to="/">Home</Link>
            <Link to={{ pathname: '/', hash: 'services' }}>Services</Link>
            <Link to="/examples">Examples</Link>
            <Link to={{ pathname: '/', hash: 'overview' }}>Overview</Link>
          </>
        )}
        {isAdmin && (
          <>
            <Link to="/admin">Admin</Link>
            <Link to="/admin/diagnostics">Diagnostics</Link>
            <Link to="/schemas">Schemas</Link>
          </>
        )}
      </nav>
      <div className="top-actions">
        {user ? (
          <div className="avatar-menu" ref={menuRef}>
            <button
              className="avatar-button"
              aria-label="Account menu"
              aria-expanded={menuOpen}
              onClick={() => setMenuOpen((shown) => !shown)}
            >
              <UserAvatar name={user.name} imageUrl={user.image_url} size={36} />
            </button>
            {menuOpen && (
              <div className="dropdown" role="menu">
                <p>Hello, {user.name}</p>
                <button
                  role="menuitem"
                  onClick={() => {
                    setMenuOpen(false);
                    navigate('/profile/edit');
                  }}
                >
                  My profile
                </button>
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
          <>
            <button className="button secondary" onClick={() => open('register')}>
              Register
            </button>
            <button className="button primary" onClick={() => open('login')}>
              Login
            </button>
          </>
        )}
      </div>
    </header>
  );
}
