import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from '../../src/engine';
import type { UserRecord } from '../auth/users-repository';
import type { Mailer } from '../mail/mailer';
import { tooManyText, type RateLimiter } from '../platform/rate-limiter';
import type { ContactRepository } from './contact-repository';

export const MESSAGE_SENT = 'Your message has been sent.';

/** Contact messages per signed-in user: enough for a conversation, too few to flood the admins. */
export const CONTACT_LIMIT = { max: 5, windowMs: 60 * 60 * 1000 } as const;

export type ContactOutcome =
  | { ok: true }
  | {
      ok: false;
      status: 400 | 429;
      detail: string;
      errors?: { field: string; message: string }[];
      retryAfter?: number;
    };

/** The contact form: checked with the form's rules, rate-limited, kept, then mailed to every admin. */
export class ContactService {
  constructor(
    private readonly repository: ContactRepository,
    private readonly registry: Registry,
    private readonly mailer: Mailer,
    private readonly limiter: RateLimiter,
    private readonly log: FastifyBaseLogger,
  ) {}

  async send(
    caller: UserRecord,
    body: { name?: string; email?: string; message?: string },
  ): Promise<ContactOutcome> {
    const values = { name: body.name ?? '', email: (body.email ?? '').trim(), message: body.message ?? '' };
    const errors = this.registry.validateAccountForm('contact', values);
    if (errors.length > 0) return { ok: false, status: 400, detail: errors[0]!.message, errors };
    const wait = await this.limiter.attempt([{ key: `contact:user:${caller.id}`, ...CONTACT_LIMIT }]);
    if (wait > 0) return { ok: false, status: 429, detail: tooManyText('messages', wait), retryAfter: wait };
    const id = await this.repository.store({ userId: caller.id, ...values });
    const admins = await this.repository.adminEmails();
    const sender = values.name.trim().replace(/\s+/g, ' ');
    const subject = `Contact form: message from ${sender}`;
    const text = [
      `${sender} <${values.email}> (account ${caller.email}, user ${caller.id}) wrote:`,
      '',
      values.message,
      '',
      `Message ${id}; reply to ${values.email}.`,
    ].join('\n');
    // The message is kept either way; a mail that cannot be sent now is logged, not the sender's fault.
    const results = await Promise.allSettled(
      admins.map((to) => this.mailer.send({ to, subject, text, kind: 'contact' })),
    );
    for (const result of results) {
      if (result.status === 'rejected') this.log.warn({ messageId: id }, 'contact mail to an admin failed');
    }
    return { ok: true };
  }
}
