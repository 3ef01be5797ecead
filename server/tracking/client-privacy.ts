// What tracking keeps of a visitor: never the address itself (its network prefix only), and nothing
// at all when the browser asks not to be tracked (Do Not Track, Global Privacy Control).

import { isIP } from 'node:net';

/** True when the request carries DNT: 1 or Sec-GPC: 1. */
export function optedOut(headers: Record<string, string | string[] | undefined>): boolean {
  const value = (name: string) => String(headers[name] ?? '').trim();
  return value('dnt') === '1' || value('sec-gpc') === '1';
}

/** The address's network: IPv4 /24 ("203.0.113.0/24"), IPv6 /48 ("2001:db8:1::/48"); null if not an address. */
export function networkPrefix(address: string): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1]! : address;
  const version = isIP(ip);
  if (version === 4) return `${ip.split('.').slice(0, 3).join('.')}.0/24`;
  if (version !== 6) return null;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 3)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/48`;
}
