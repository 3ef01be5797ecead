import { createHash, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AccountFormError, Registry } from '../../src/engine';
import type { AuthService } from '../auth/auth-service';
import { hashPassword, verifyPassword } from '../auth/passwords';
import type { ProfileChanges, ProfileRecord, UsersRepository } from '../auth/users-repository';
import type { Mailer } from '../mail/mailer';
import { tooManyText, type RateLimiter, type RateRule } from '../platform/rate-limiter';
import { ACCOUNT_LIMITS } from './account-limits';
import type { TokenCipher } from './token-cipher';
import type { AccountIdentity } from '../auth/account-schemas';
import { SERVER_FORM_CHECKS } from './common-passwords';

export const EMAIL_TAKEN = 'An account with this e-mail already exists.';
export const REGISTERED = 'Registration successful! Please check your e-mail to verify your address.';
export const VERIFICATION_SENT =
  'If an account with this e-mail is waiting for verification, a new link has been sent.';
export const PROFILE_UPDATED = 'Profile updated successfully!';
export const WRONG_CURRENT_PASSWORD = 'Current password is incorrect';
/** The 404 for an account that does not exist or is not the caller's (admin, applications too). */
export const USER_NOT_FOUND = 'User not found';

/** How long a verification link works. */
export const VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;

/** The keys the settings page sends; a body with only these is checked by the settings form. */
const SETTINGS_KEYS = new Set(['provided_timezone', 'custom_ibmq_token']);

/** GET /users/me's data: the profile without secrets (whether a provider token is stored, not the token). */
export interface CurrentUser extends AccountIdentity {
  dob: string | null;
  image_url: string | null;
  provided_timezone: string | null;
  has_custom_ibmq_token: boolean;
}

type Refusal =
  | { ok: false; status: 400; detail: string; errors: AccountFormError[] }
  | { ok: false; status: 404 | 409; detail: string }
  | { ok: false; status: 429; detail: string; retryAfter: number };

const invalid = (errors: AccountFormError[]): Refusal => ({
  ok: false,
  status: 400,
  detail: errors[0]!.message,
  errors,
});
const notFound: Refusal = { ok: false, status: 404, detail: USER_NOT_FOUND };
const tooMany = (what: string, retryAfter: number): Refusal => ({
  ok: false,
  status: 429,
  detail: tooManyText(what, retryAfter),
  retryAfter,
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const lower = (email: string) => email.trim().toLowerCase();

export interface ProfileBody {
  name?: string;
  dob?: string | null;
  image_url?: string | null;
  custom_ibmq_token?: string | null;
  provided_timezone?: string | null;
  old_password?: string;
  new_password?: string;
  confirm_new_password?: string;
}

/**
 * Accounts: registration (no role until an admin approves), e-mail verification by single-use
 * expiring links, the approval status, the profile with its encrypted provider token. The form
 * rules are the engine's (schemas/accounts.json), the same the browser checks.
 */
export class AccountsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly auth: AuthService,
    private readonly mailer: Mailer,
    private readonly registry: Registry,
    private readonly cipher: TokenCipher,
    private readonly limiter: RateLimiter,
    private readonly options: { publicUrl: string; log: FastifyBaseLogger },
  ) {}

  async register(
    body: { name?: unknown; email?: unknown; password?: unknown },
    address: string,
  ): Promise<{ ok: true; id: number; email: string } | Refusal> {
    const errors = this.registry.validateAccountForm('register', body, SERVER_FORM_CHECKS);
    if (errors.length > 0) return invalid(errors);
    const { name, email, password } = body as { name: string; email: string; password: string };
    const { registrationsPerAddress } = ACCOUNT_LIMITS;
    const wait = await this.limiter.attempt([
      { key: `register:address:${address}`, ...registrationsPerAddress },
    ]);
    if (wait > 0) return tooMany('registrations from this address', wait);
    const id = await this.users.createPending({
      name,
      email: email.trim(),
      passwordHash: await hashPassword(password),
    });
    if (id === null) return { ok: false, status: 409, detail: EMAIL_TAKEN };
    try {
      await this.issueVerification({ id, name, email: email.trim() });
    } catch (error) {
      // The account exists either way; a mail server that is away must not turn it into a 500 the
      // user would retry into a 409. They ask for a new link from /pending-verify.
      this.options.log.error({ userId: id, err: error }, 'verification mail not sent');
    }
    return { ok: true, id, email: email.trim() };
  }

  /** A fresh verification link for an account, mailed (the admin console's "send verification" too). */
  readonly sendVerification = async (user: { id: number; name: string; email: string }): Promise<void> => {
    await this.issueVerification(user);
  };

  private async issueVerification(user: { id: number; name: string; email: string }): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    await this.users.addVerificationToken(user.id, sha256(token), new Date(Date.now() + VERIFICATION_TTL_MS));
    const link = `${this.options.publicUrl}/api/users/verify-email?token=${token}`;
    await this.mailer.send({
      to: user.email,
      subject: 'Verify your e-mail address for QML Studio',
      text: `Hello ${user.name},\n\nplease confirm your e-mail address by opening this link (it works once, for 24 hours):\n\n${link}\n\nAn admin then approves your account.\n`,
      kind: 'verification',
    });
    // Without a mail server the link is also here, so an operator can pass it on.
    this.options.log.info({ userId: user.id, link }, 'e-mail verification link issued');
  }

  /** Uses a verification token; false for an unknown, used or expired one. */
  async verifyEmail(token: string): Promise<boolean> {
    if (!token) return false;
    return (await this.users.consumeVerificationToken(sha256(token))) !== null;
  }

  /**
   * Mails a new link when the e-mail belongs to an account still unverified. The reply is the same
   * either way (no account enumeration); the limits count per address and per account.
   */
  async resendVerification(email: string): Promise<{ ok: true } | Refusal> {
    const rules: RateRule[] = [
      { key: `verify-mail:email:${lower(email)}`, ...ACCOUNT_LIMITS.verificationMailsPerEmail },
    ];
    const user = email ? await this.users.findByEmail(email.trim()) : null;
    if (user)
      rules.push({ key: `verify-mail:account:${user.id}`, ...ACCOUNT_LIMITS.verificationMailsPerAccount });
    const wait = await this.limiter.attempt(rules);
    if (wait > 0) return tooMany('verification e-mails', wait);
    if (user && !user.email_verified && !user.disabled && !user.rejected) await this.issueVerification(user);
    return { ok: true };
  }

  /** The approval page's poll: false/false for an unknown e-mail (the same shape, no enumeration). */
  async approvalStatus(email: string): Promise<{ email_verified: boolean; is_approved: boolean }> {
    const user = email ? await this.users.findByEmail(email.trim()) : null;
    return { email_verified: user?.email_verified ?? false, is_approved: user?.is_approved ?? false };
  }

  async me(userId: number): Promise<CurrentUser | null> {
    const profile = await this.users.findProfile(userId);
    return profile ? currentUser(profile) : null;
  }

  /** The owner's own provider token in plaintext, for their edit form; null when none is stored. */
  async providerToken(
    requester: { id: number },
    userId: number,
  ): Promise<{ ok: true; token: string | null } | Refusal> {
    if (requester.id !== userId) return notFound;
    const profile = await this.users.findProfile(userId);
    if (!profile) return notFound;
    const stored = profile.custom_ibmq_token_encrypted;
    return { ok: true, token: stored ? this.cipher.decrypt(stored) : null };
  }

  /**
   * PUT /users/{id}: the owner or an admin (anyone else: 404, as if the account did not exist).
   * A body with only the settings page's keys is checked by the settings form, any other by the
   * profile form. A password change needs the current password and ends the user's other sessions.
   */
  async updateProfile(
    requester: { id: number; roles: string[]; sessionId: string | null },
    userId: number,
    body: ProfileBody,
  ): Promise<{ ok: true; user: CurrentUser } | Refusal> {
    if (requester.id !== userId && !requester.roles.includes('admin')) return notFound;
    const profile = await this.users.findProfile(userId);
    if (!profile) return notFound;
    const settingsOnly = Object.keys(body).every((key) => SETTINGS_KEYS.has(key));
    const errors = this.registry.validateAccountForm(
      settingsOnly ? 'settings' : 'profile',
      body,
      SERVER_FORM_CHECKS,
    );
    if (errors.length > 0) return invalid(errors);

    const changes: ProfileChanges = {
      name: body.name,
      dob: body.dob,
      image_url: body.image_url === '' ? null : body.image_url,
      provided_timezone: body.provided_timezone === '' ? null : body.provided_timezone,
    };
    if (body.custom_ibmq_token !== undefined) {
      changes.custom_ibmq_token_encrypted = body.custom_ibmq_token
        ? this.cipher.encrypt(body.custom_ibmq_token)
        : null;
    }
    const changesPassword = body.new_password !== undefined;
    if (changesPassword) {
      const ok = profile.password_hash
        ? await verifyPassword(profile.password_hash, body.old_password ?? '')
        : false;
      if (!ok) return invalid([{ field: '/old_password', message: WRONG_CURRENT_PASSWORD }]);
      changes.password_hash = await hashPassword(body.new_password!);
    }
    await this.users.updateProfile(userId, changes);
    if (changesPassword) {
      // Every other session of the account ends; the requester's own stays when it is the owner's.
      await this.users.revokeOtherSessions(userId, requester.id === userId ? requester.sessionId : null);
      this.auth.forgetUser(userId);
    }
    const updated = await this.users.findProfile(userId);
    return { ok: true, user: currentUser(updated!) };
  }
}

function currentUser(profile: ProfileRecord): CurrentUser {
  return {
    id: Number(profile.id),
    name: profile.name,
    email: profile.email,
    email_verified: profile.email_verified,
    is_approved: profile.is_approved,
    roles: profile.roles,
    dob: profile.dob,
    image_url: profile.image_url,
    provided_timezone: profile.provided_timezone,
    has_custom_ibmq_token: profile.custom_ibmq_token_encrypted !== null,
  };
}
