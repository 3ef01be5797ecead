import type { MailMessage } from '../mail/mailer';

/** The mail that tells a user an admin approved the registration: they can sign in now. */
export function approvalMail(user: { name: string; email: string }, publicUrl: string): MailMessage {
  return {
    kind: 'approval',
    to: user.email,
    subject: 'Your QML Studio account is approved',
    text: [
      `Hello ${user.name},`,
      '',
      'An administrator has approved your account. You can log in now:',
      `${publicUrl.replace(/\/$/, '')}/approved-account`,
    ].join('\n'),
  };
}

/** The mail that tells a user an admin did not approve the registration. */
export function rejectionMail(user: { name: string; email: string }): MailMessage {
  return {
    kind: 'rejection',
    to: user.email,
    subject: 'Your QML Studio registration was not approved',
    text: [
      `Hello ${user.name},`,
      '',
      'An administrator has reviewed your registration and did not approve it.',
      'If you think this is a mistake, please contact the administrator.',
    ].join('\n'),
  };
}
