/** The user's timezone kept in the browser (spec section 3), defaulting to the browser's zone. */
export const USER_TIMEZONE_KEY = 'USER_TIMEZONE';

let zones: string[] | undefined;

/** Every IANA zone name the browser knows (Intl), computed once. */
export function allTimeZones(): string[] {
  zones ??= Intl.supportedValuesOf('timeZone');
  return zones;
}

/** The browser's own zone, e.g. 'Europe/Berlin'. */
export const guessTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Zones whose name holds every word of the query (case-insensitive; '_' and ' ' alike). */
export function searchTimeZones(query: string, within: readonly string[] = allTimeZones()): string[] {
  const words = query.toLowerCase().replace(/_/g, ' ').split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...within];
  return within.filter((zone) => {
    const name = zone.toLowerCase().replace(/_/g, ' ');
    return words.every((word) => name.includes(word));
  });
}

export function storedTimeZone(): string {
  try {
    return localStorage.getItem(USER_TIMEZONE_KEY) || guessTimeZone();
  } catch {
    return guessTimeZone();
  }
}

export function storeTimeZone(zone: string): void {
  try {
    localStorage.setItem(USER_TIMEZONE_KEY, zone);
  } catch {
    // storage refused: the zone still lives on the account
  }
}
