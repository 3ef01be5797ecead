const HOUR = 60 * 60 * 1000;

/** The account limits: sign-ups per address, verification mails per e-mail address and per account. */
export const ACCOUNT_LIMITS = {
  registrationsPerAddress: { max: 10, windowMs: HOUR },
  verificationMailsPerEmail: { max: 3, windowMs: HOUR },
  verificationMailsPerAccount: { max: 5, windowMs: HOUR },
} as const;
