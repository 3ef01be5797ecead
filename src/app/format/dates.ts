import { storedTimeZone } from './timezones';

type Style = 'date' | 'date-time';

/**
 * Spec platform-shell.md section 9: dates are shown in en-US format, converted to the user's stored
 * timezone (the browser's zone by default). The one place the app formats a server timestamp.
 */
export function formatTimestamp(
  iso: string | null | undefined,
  style: Style = 'date-time',
  timeZone: string = storedTimeZone(),
): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  const show = (zone?: string) =>
    style === 'date'
      ? date.toLocaleDateString('en-US', { timeZone: zone })
      : date.toLocaleString('en-US', { timeZone: zone });
  try {
    return show(timeZone);
  } catch {
    // A stored zone this browser does not know: the browser's own zone rather than nothing.
    return show();
  }
}
