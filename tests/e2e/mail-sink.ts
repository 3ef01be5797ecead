// A real SMTP server for the end-to-end tests: the product is started with SMTP_URL pointing at it
// and every message it sends is caught here, decoded, and can be waited for by recipient.

import type { AddressInfo } from 'node:net';

import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  /** Envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  subject: string;
  /** The decoded text body. */
  text: string;
  raw: string;
}

export interface MailSink {
  /** What to give the product as SMTP_URL. */
  url: string;
  mails: CaughtMail[];
  /** The first caught mail to `address` (optionally also matching `match`) that arrives within the timeout. */
  waitForMail(
    address: string,
    match?: (mail: CaughtMail) => boolean,
    timeoutMs?: number,
  ): Promise<CaughtMail>;
  stop(): Promise<void>;
}

/** Decodes RFC 2047 encoded words (nodemailer encodes non-ASCII subjects as =?UTF-8?Q?...?= or B). */
function decodeWords(value: string): string {
  return value.replace(
    /=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g,
    (_all, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  );
}

function decodeQuotedPrintable(body: string): string {
  const joined = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(joined[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Splits a single-part message (what the product sends: text only) into its subject and decoded text. */
export function parseMail(raw: string): { subject: string; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const header = (name: string) =>
    head
      .split(/\r?\n/)
      .find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))
      ?.slice(name.length + 1)
      .trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body;
  return { subject: decodeWords(header('Subject')), text: text.replace(/\r\n/g, '\n') };
}

/** Every http(s) URL in a mail's text, in order. */
export function linksIn(mail: CaughtMail): string[] {
  return mail.text.match(/https?:\/\/[^\s<>"')]+/g) ?? [];
}

export async function startMailSink(): Promise<MailSink> {
  const mails: CaughtMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        mails.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
          ...parseMail(raw),
          raw,
        });
        for (const wake of waiters) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitForMail(address, match = () => true, timeoutMs = 20_000) {
      const find = () => mails.find((mail) => mail.to.includes(address.toLowerCase()) && match(mail));
      const found = find();
      if (found) return found;
      return new Promise<CaughtMail>((resolve, reject) => {
        const wake = () => {
          const mail = find();
          if (!mail) return;
          cleanup();
          resolve(mail);
        };
        const timer = setTimeout(() => {
          cleanup();
          const seen = mails.map((mail) => `${mail.to.join(',')}: ${mail.subject}`).join('\n  ');
          reject(new Error(`no mail to ${address} within ${timeoutMs} ms; caught:\n  ${seen || '(none)'}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        waiters.add(wake);
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Waits for a verification mail to `address` and returns the link of the latest one caught. */
export async function verificationLink(sink: MailSink, address: string): Promise<string> {
  const linkOf = (mail: CaughtMail) => linksIn(mail).find((link) => link.includes('/verify-email?token='));
  await sink.waitForMail(address, (mail) => linkOf(mail) !== undefined);
  const latest = sink.mails.filter((mail) => mail.to.includes(address.toLowerCase()) && linkOf(mail)).at(-1)!;
  return linkOf(latest)!;
}
