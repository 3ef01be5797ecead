import type { Database } from '../db/database';
import type { AccessTokens } from './access-tokens';
import { hashPassword, verifyPassword } from './passwords';
import { ReadCache } from '../db/read-cache';
import { signInRefusal } from './sign-in-gate';
import { SessionsRepository } from './sessions-repository';
import { UsersRepository, type UserRecord } from './users-repository';

export type LoginOutcome =
  | { ok: true; accessToken: string; expiresIn: number; user: UserRecord }
  | { ok: false; status: 401 | 403; detail: string; redirect?: string; email?: string };

// A fixed hash to verify against when the e-mail is unknown, so both paths cost the same time.
let dummyHash: Promise<string> | null = null;

/** Sign-in and token checks. The gate order is the spec's: verified e-mail, approval, a role. */
export class AuthService {
  readonly users: UsersRepository;
  readonly sessions: SessionsRepository;
  /** Resolved sessions by "userId:sessionId", while the tables they were read from are unwritten. */
  private readonly resolved: ReadCache<UserRecord | null>;

  constructor(
    db: Database,
    private readonly tokens: AccessTokens,
    /** The process's repositories (services.ts builds one per store); own ones when absent (tests). */
    options: { sessionCacheMs?: number; users?: UsersRepository; sessions?: SessionsRepository } = {},
  ) {
    this.users = options.users ?? new UsersRepository(db);
    this.sessions = options.sessions ?? new SessionsRepository(db);
    // A revocation, password, role or approval change anywhere writes one of these tables.
    this.resolved = new ReadCache(db.versions, ['sessions', 'users', 'user_roles', 'roles'], {
      maxAgeMs: options.sessionCacheMs ?? 5_000,
    });
  }

  async login(email: string, password: string): Promise<LoginOutcome> {
    const user = await this.users.findByEmail(email);
    dummyHash ??= hashPassword('not-a-real-password');
    const passwordOk = user?.password_hash
      ? await verifyPassword(user.password_hash, password)
      : (await verifyPassword(await dummyHash, password), false);
    if (!user || !passwordOk) return { ok: false, status: 401, detail: 'Incorrect email or password' };
    const refusal = signInRefusal(user);
    if (refusal) {
      const { code: _code, ...outcome } = refusal;
      return { ok: false, ...outcome };
    }
    return { ok: true, ...(await this.startSession(user.id)), user };
  }

  /** A new session and its access token (after a sign-in has passed the gate). */
  async startSession(userId: number): Promise<{ accessToken: string; expiresIn: number }> {
    const sessionId = await this.sessions.create(userId, this.tokens.lifetimeSeconds);
    const accessToken = await this.tokens.sign({ userId, sessionId });
    return { accessToken, expiresIn: this.tokens.lifetimeSeconds };
  }

  /**
   * The signed-in user behind a bearer token, or null when the token is invalid, expired or revoked.
   * One query resolves session and user; the answer is reused until a write to sessions or users
   * (here, or in another process announced through Redis), for a few seconds at most.
   */
  async authenticate(token: string): Promise<{ user: UserRecord; sessionId: string } | null> {
    const claims = await this.tokens.verify(token);
    if (!claims) return null;
    const user = await this.resolved.get(`${claims.userId}:${claims.sessionId}`, () =>
      this.users.findBySession(claims.sessionId, claims.userId),
    );
    return user ? { user, sessionId: claims.sessionId } : null;
  }

  /** Revokes a session: it stops working at once, here and (through TableVersions) everywhere. */
  async logout(userId: number, sessionId: string): Promise<void> {
    await this.sessions.revoke(sessionId);
    const key = `${userId}:${sessionId}`;
    this.resolved.evict((k) => k === key);
  }

  /** Forgets what is remembered about a user's sessions (after a password or role change). */
  forgetUser(userId: number): void {
    this.resolved.evict((key) => key.startsWith(`${userId}:`));
  }
}
