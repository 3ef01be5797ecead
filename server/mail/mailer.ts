import nodemailer from 'nodemailer';
import type { Database } from '../db/database';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** What the mail is for (verification, approval, rejection); the outbox keeps it for admins. */
  kind?: string;
}

/** Sends the product's e-mail: through SMTP when SMTP_URL is set, else into the outbox table. */
export interface Mailer {
  readonly mode: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** The embedded default: mail is kept in `mail_outbox`, where admins can read it. */
export class OutboxMailer implements Mailer {
  readonly mode = 'outbox' as const;
  constructor(private readonly db: Database) {}

  async send(message: MailMessage) {
    await this.db.query(`insert into mail_outbox (recipient, subject, body, kind) values ($1, $2, $3, $4)`, [
      message.to,
      message.subject,
      message.text,
      message.kind ?? null,
    ]);
  }

  close() {}
}

export class SmtpMailer implements Mailer {
  readonly mode = 'smtp' as const;
  private readonly transport: nodemailer.Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(smtpUrl);
  }

  async send(message: MailMessage) {
    await this.transport.sendMail({
      from: this.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
    });
  }

  close() {
    this.transport.close();
  }
}

export function createMailer(config: { smtpUrl: string | null; mailFrom: string }, db: Database): Mailer {
  return config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : new OutboxMailer(db);
}
