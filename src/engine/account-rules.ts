// The account forms' date and time-zone rules as plain functions: the account-form ajv's keywords
// call them at run time, and so do the precompiled validators (validator-runtime.ts), which must
// not pull ajv into the browser.

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Today as a UTC calendar date ("YYYY-MM-DD"): browser and server compare dates the same way. */
function todayUtc(now: Date): { y: number; m: number; d: number } {
  return { y: now.getUTCFullYear(), m: now.getUTCMonth() + 1, d: now.getUTCDate() };
}

function parseDate(value: string): { y: number; m: number; d: number } | undefined {
  const match = DATE_RE.exec(value);
  if (!match) return undefined;
  return { y: Number(match[1]), m: Number(match[2]), d: Number(match[3]) };
}

function compareDates(
  a: { y: number; m: number; d: number },
  b: { y: number; m: number; d: number },
): number {
  return a.y - b.y || a.m - b.m || a.d - b.d;
}

/** True when `dob` is at least `years` whole years before `now` (a 29 February birthday counts from 1 March). */
export function isAtLeastYearsOld(dob: string, years: number, now: Date = new Date()): boolean {
  const born = parseDate(dob);
  if (!born) return true; // the format rule reports malformed dates
  const today = todayUtc(now);
  return compareDates({ y: born.y + years, m: born.m, d: born.d }, today) <= 0;
}

export function isNotFutureDate(value: string, now: Date = new Date()): boolean {
  const date = parseDate(value);
  if (!date) return true;
  return compareDates(date, todayUtc(now)) <= 0;
}

const ZONE_NAME_RE = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/**
 * A real IANA time-zone name as the runtime's time-zone database knows it (canonical names and
 * their aliases, e.g. Asia/Calcutta), spelled with its own capitals; UTC offsets are not names.
 */
export function isIanaTimeZone(value: string): boolean {
  if (!ZONE_NAME_RE.test(value)) return false;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  // Intl accepts any capitalisation; an alias resolves to another name, so only compare like with like.
  return resolved.toLowerCase() !== value.toLowerCase() || resolved === value;
}
