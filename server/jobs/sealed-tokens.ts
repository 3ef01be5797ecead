// A custom IBM token a run was given (the body's actual_quantum_device_token, the app_data snapshot's
// custom_ibm_token) is kept on the job row for what-if reruns on the device, encrypted at rest by the
// same rule as the profile's saved token (server/accounts/token-cipher.ts: AES-256-GCM, one key). It
// is decrypted only where a worker needs it: the envelope of the run (or rerun) as it starts.

/** What seals and opens a token: the accounts' TokenCipher (services.ts hands the same one to both). */
export interface TokenSealer {
  encrypt(plaintext: string): string;
  decrypt(stored: string): string | null;
}
type Cipher = TokenSealer;

// The keys a user's token is typed into: sealed here, masked in replies (server/outputs/device-token-redaction.ts).
const TOKEN_KEYS = new Set(['actual_quantum_device_token', 'custom_ibm_token', 'ibm_token']);

/**
 * A regular expression (PostgreSQL's ~ and JavaScript's) matching a JSON text in which a token key holds
 * a non-empty string that is not sealed (isSealed below: "v1." and three more dot-separated parts).
 */
export const CLEAR_TOKEN_PATTERN = `"(${[...TOKEN_KEYS].join('|')})":\\s*"(?!v1\\.[^".]*\\.[^".]*\\.[^".]*")[^"]`;

/** Whether a body or app_data key holds a token. */
export const isTokenKey = (key: string): boolean => TOKEN_KEYS.has(key);

/** A sealed value: the cipher's "v1.<iv>.<tag>.<ciphertext>" (a token itself holds no dots). */
export const isSealed = (value: string): boolean => value.startsWith('v1.') && value.split('.').length === 4;

function mapTokens<T>(value: T, change: (token: string) => string): T {
  if (Array.isArray(value)) return value.map((item: unknown) => mapTokens(item, change)) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>))
    copy[key] = isTokenKey(key) && typeof item === 'string' && item ? change(item) : mapTokens(item, change);
  return copy as T;
}

/** A deep copy with every token encrypted (a value sealed already, a rerun's, is kept). */
export function sealTokens<T>(value: T, cipher: Cipher): T {
  return mapTokens(value, (token) => (isSealed(token) ? token : cipher.encrypt(token)));
}

/** A deep copy with every sealed token decrypted (one that does not decrypt under this key is dropped). */
export function openTokens<T>(value: T, cipher: Cipher): T {
  return mapTokens(value, (token) => (isSealed(token) ? (cipher.decrypt(token) ?? '') : token));
}
