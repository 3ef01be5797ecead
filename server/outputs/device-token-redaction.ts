/**
 * A user's IBM Quantum token must never come back in an output's reply: the job's stored body
 * (`actual_quantum_device_token`), the app_data snapshot the run kept (`custom_ibm_token`) and the run
 * record's config all carry it (sealed at rest, server/jobs/sealed-tokens.ts; older rows sealed at start, main.ts). Only the application's own form (GET
 * /applications/{id}/detail, the owner's) shows it back, as the spec's custom-token modal needs.
 */
import { isSealed, isTokenKey } from '../jobs/sealed-tokens';

export { isTokenKey };

/**
 * '••••' and the last 4 characters (enough to tell two tokens apart), or just '••••' for a short one. A token
 * sealed at rest (a job row's, sealed-tokens.ts) shows '••••' alone: its last characters are ciphertext.
 */
export function maskToken(token: string): string {
  return token.length >= 12 && !isSealed(token) ? `••••${token.slice(-4)}` : '••••';
}

/** A deep copy of `value` where every token key's non-empty string is masked; other values untouched. */
export function redactDeviceTokens<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => redactDeviceTokens(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    copy[key] =
      isTokenKey(key) && typeof item === 'string' && item ? maskToken(item) : redactDeviceTokens(item);
  }
  return copy as T;
}
