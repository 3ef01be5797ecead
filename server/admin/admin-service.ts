import type { FastifyBaseLogger } from 'fastify';
import { USER_NOT_FOUND } from '../accounts/accounts-service';
import type { AuthService } from '../auth/auth-service';
import type { Database, Queryable } from '../db/database';
import type { Mailer, MailMessage } from '../mail/mailer';
import type {
  AccountStatus,
  AdminUserRecord,
  AdminUsersRepository,
  OutboxRecord,
} from './admin-users-repository';
import { approvalMail, rejectionMail } from './decision-mails';

/** Issues a fresh verification link for an account and mails it (the accounts module's rule). */
export type SendVerification = (user: { id: number; name: string; email: string }) => Promise<void>;

export type AdminOutcome =
  | { ok: true; message: string; user: AdminUserRecord }
  | { ok: false; status: 404 | 409; detail: string }
  | { ok: false; status: 400; detail: string; errors: { field: string; message: string }[] };

export const LAST_ADMIN_DISABLE = 'The last admin cannot be disabled.';
export const LAST_ADMIN_REJECT = 'The last admin cannot be rejected.';
export const LAST_ADMIN_ROLE = 'The last admin cannot lose the admin role.';
export const ALREADY_VERIFIED = 'This e-mail address is already verified.';
export const ALREADY_APPROVED = 'This account is already approved.';
export const ALREADY_REJECTED = 'This registration is already rejected.';
export const OWN_ACCOUNT_REJECT = 'You cannot reject your own account.';
export const OWN_ACCOUNT_DISABLE = 'You cannot disable your own account.';

const notFound = { ok: false, status: 404, detail: USER_NOT_FOUND } as const;
const conflict = (detail: string) => ({ ok: false, status: 409, detail }) as const;
/** An admin acting on their own account where that would lock them out: refused, naming the path's id. */
const ownAccount = (detail: string): AdminOutcome => ({
  ok: false,
  status: 400,
  detail,
  errors: [{ field: '/id', message: detail }],
});

/** A change refused inside its transaction (rolled back), e.g. one that would leave no admin. */
class ConflictRefusal extends Error {}

/**
 * What admins do to accounts: approve (grants `user`), reject, verify, resend verification, disable
 * (ends every session), enable, set roles; never leaving the deployment without an admin who can act.
 */
export class AdminService {
  constructor(
    private readonly db: Database,
    private readonly repository: AdminUsersRepository,
    private readonly mailer: Mailer,
    private readonly auth: AuthService,
    private readonly options: {
      publicUrl: string;
      sendVerification: SendVerification;
      log: FastifyBaseLogger;
    },
  ) {}

  list(status?: AccountStatus): Promise<AdminUserRecord[]> {
    return this.repository.list(status);
  }

  knownRoles(): Promise<string[]> {
    return this.repository.knownRoles();
  }

  outbox(limit: number): Promise<OutboxRecord[]> {
    return this.repository.outbox(limit);
  }

  get mailMode(): Mailer['mode'] {
    return this.mailer.mode;
  }

  async approve(id: number): Promise<AdminOutcome> {
    return this.change(
      id,
      'User approved.',
      async (tx, user) => {
        // A second approval would mail the user again (a double click, two admins at once).
        if (user.status === 'approved') throw new ConflictRefusal(ALREADY_APPROVED);
        await this.repository.approve(tx, id);
      },
      approvalMail,
    );
  }

  /** Rejects a registration; `actorId` is the admin deciding, who may not reject themselves. */
  async reject(id: number, actorId: number): Promise<AdminOutcome> {
    if (id === actorId) return ownAccount(OWN_ACCOUNT_REJECT);
    return this.change(
      id,
      'User rejected.',
      async (tx, user) => {
        if (user.status === 'rejected') throw new ConflictRefusal(ALREADY_REJECTED);
        await this.guardLastAdmin(tx, user, LAST_ADMIN_REJECT);
        await this.repository.reject(tx, id);
        await this.repository.revokeSessions(tx, id);
      },
      (user) => rejectionMail(user),
    );
  }

  async verifyEmail(id: number): Promise<AdminOutcome> {
    return this.change(id, 'E-mail address marked as verified.', (tx) =>
      this.repository.markEmailVerified(tx, id),
    );
  }

  /** Disables an account; `actorId` is the admin deciding, who may not disable themselves. */
  async disable(id: number, actorId: number): Promise<AdminOutcome> {
    if (id === actorId) return ownAccount(OWN_ACCOUNT_DISABLE);
    return this.change(id, 'User disabled.', async (tx, user) => {
      await this.guardLastAdmin(tx, user, LAST_ADMIN_DISABLE);
      await this.repository.setDisabled(tx, id, true);
      await this.repository.revokeSessions(tx, id);
    });
  }

  async enable(id: number): Promise<AdminOutcome> {
    return this.change(id, 'User enabled.', (tx) => this.repository.setDisabled(tx, id, false));
  }

  async setRoles(id: number, requested: string[]): Promise<AdminOutcome> {
    const known = await this.repository.knownRoles();
    const errors = requested.flatMap((role, index) =>
      known.includes(role) ? [] : [{ field: `/roles/${index}`, message: `Unknown role "${role}"` }],
    );
    if (errors.length > 0) return { ok: false, status: 400, detail: errors[0]!.message, errors };
    const roles = [...new Set(requested)];
    return this.change(id, 'Roles updated.', async (tx, user) => {
      if (!roles.includes('admin')) await this.guardLastAdmin(tx, user, LAST_ADMIN_ROLE);
      await this.repository.setRoles(tx, id, roles);
    });
  }

  async sendVerification(id: number): Promise<AdminOutcome> {
    const user = await this.repository.find(id);
    if (!user) return notFound;
    if (user.email_verified) return conflict(ALREADY_VERIFIED);
    await this.options.sendVerification(user);
    return { ok: true, message: 'Verification e-mail sent.', user };
  }

  /**
   * Applies one change in a transaction, then forgets the user's cached sessions (so roles, a
   * disabling or revoked sessions count at once here) and sends the decision mail, if any.
   */
  private async change(
    id: number,
    message: string,
    apply: (tx: Queryable, user: AdminUserRecord) => Promise<void>,
    mail?: (user: AdminUserRecord, publicUrl: string) => MailMessage,
  ): Promise<AdminOutcome> {
    let updated: AdminUserRecord | null;
    try {
      updated = await this.db.transaction(async (tx) => {
        await this.repository.lockAdminGuard(tx);
        const user = await this.repository.find(id, tx);
        if (!user) return null;
        await apply(tx, user);
        return this.repository.find(id, tx);
      });
    } catch (error) {
      if (error instanceof ConflictRefusal) return conflict(error.message);
      throw error;
    }
    if (!updated) return notFound;
    this.auth.forgetUser(id);
    if (!mail) return { ok: true, message, user: updated };
    try {
      await this.mailer.send(mail(updated, this.options.publicUrl));
      return { ok: true, message, user: updated };
    } catch (error) {
      // The decision stands; the admin learns that the user was not told.
      this.options.log.error({ err: error, userId: id }, 'decision e-mail not sent');
      return { ok: true, message: `${message} The e-mail to the user could not be sent.`, user: updated };
    }
  }

  /** Refuses (rolling the transaction back) when the user is the only admin who can still act. */
  private async guardLastAdmin(tx: Queryable, user: AdminUserRecord, detail: string): Promise<void> {
    const admins = await this.repository.activeAdminIds(tx);
    if (admins.length === 1 && admins[0] === user.id) throw new ConflictRefusal(detail);
  }
}
