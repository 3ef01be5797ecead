import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/database';
import { createMailer } from './mailer';
import { migratedMemoryDatabase } from '../test-support/harness';

describe('mail', () => {
  let db: Database;
  beforeAll(async () => {
    db = await migratedMemoryDatabase();
  });
  afterAll(async () => db.close());

  it('keeps mail in the outbox when no SMTP server is configured', async () => {
    const mailer = createMailer({ smtpUrl: null, mailFrom: 'QML Studio <no-reply@localhost>' }, db);
    expect(mailer.mode).toBe('outbox');
    await mailer.send({ to: 'ada@example.com', subject: 'Verify your e-mail', text: 'Open the link' });
    const { rows } = await db.query<{ recipient: string; subject: string }>(
      'select recipient, subject from mail_outbox',
    );
    expect(rows).toEqual([{ recipient: 'ada@example.com', subject: 'Verify your e-mail' }]);
  });

  it('delivers through a real SMTP server when SMTP_URL is set', async () => {
    const received: string[] = [];
    const sink = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
        stream.on('end', () => {
          received.push(data);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const port = (sink.server.address() as AddressInfo).port;
    const mailer = createMailer(
      { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'QML Studio <studio@example.com>' },
      db,
    );
    expect(mailer.mode).toBe('smtp');
    await mailer.send({
      to: 'grace@example.com',
      subject: 'Your account is approved',
      text: 'Welcome aboard',
    });
    mailer.close();
    await new Promise<void>((resolve) => sink.close(resolve));
    expect(received).toHaveLength(1);
    expect(received[0]).toContain('To: grace@example.com');
    expect(received[0]).toContain('Subject: Your account is approved');
    expect(received[0]).toContain('Welcome aboard');
  });
});
