/** The e-mail the verification and approval pages follow (spec section 3: kept in browser storage). */
export const STORED_EMAIL_KEY = 'VERIFICATION_EMAIL';

/** The stored e-mail, '' when none; throws when the browser refuses storage access. */
export function readStoredEmail(): string {
  return localStorage.getItem(STORED_EMAIL_KEY) ?? '';
}

/** Remembers (or with null forgets) the e-mail; storage errors are swallowed where the caller has no use for them. */
export function rememberEmail(email: string | null): void {
  try {
    if (email) localStorage.setItem(STORED_EMAIL_KEY, email);
    else localStorage.removeItem(STORED_EMAIL_KEY);
  } catch {
    // Private modes may refuse storage: the approval page then asks for the address.
  }
}
