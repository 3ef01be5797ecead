import { MemoryRateStore, type RateStore } from '../platform/rate-limiter';

export interface ThrottleLimits {
  /** Failures for one e-mail from one address after which each further attempt waits. */
  perEmailAndAddress: number;
  /** Failures from one address across all e-mails after which attempts from it wait (password spraying). */
  perAddress: number;
  /** Failures for one e-mail across all addresses after which attempts on it wait (one account, many addresses). */
  perAccount: number;
  /** How long a failure counts. */
  windowMs: number;
  /** The longest wait one e-mail (from one address, or from any) is made to keep between attempts. */
  maxDelaySeconds: number;
  /**
   * The longest wait an address is made to keep: short, because everyone behind one NAT shares it;
   * the e-mail's own delays stop guessing at one account.
   */
  maxAddressDelaySeconds: number;
}

export const DEFAULT_THROTTLE_LIMITS: ThrottleLimits = {
  perEmailAndAddress: 5,
  perAddress: 20,
  perAccount: 10,
  windowMs: 60 * 60 * 1000,
  maxDelaySeconds: 15 * 60,
  maxAddressDelaySeconds: 60,
};

/** Seconds to wait after `failures` failures when the first `free` - 1 cost nothing: 1, 2, 4, ... up to `max`. */
export function delaySeconds(failures: number, free: number, max: number): number {
  if (failures < free) return 0;
  return Math.min(max, 2 ** (failures - free));
}

interface DelayRule {
  key: string;
  free: number;
  maxSeconds: number;
}

/**
 * Slows down password guessing with growing delays, never a lock: past a number of free failures
 * within the window, each attempt must wait 1, 2, 4, ... seconds after the last failure, up to a cap,
 * per e-mail from one address, per address (across e-mails) and per e-mail (across addresses). An
 * attempt made during a wait is refused (429 with Retry-After) without checking the password and is not
 * counted; once the wait is over one attempt goes through, so correct credentials always get in
 * after at most the cap (a minute for an address that many people behind one NAT share).
 * The counts are kept in the deployment's rate store: on Redis (REDIS_URL) every server shares them.
 * The address is the request's (request.ip), which follows X-Forwarded-For only from the proxies
 * TRUST_PROXY names. A success forgets the failures of that e-mail from that address, not the
 * address's or the account's (one account of one's own must not reset a spraying count).
 */
export class LoginThrottle {
  private readonly limits: ThrottleLimits;

  constructor(
    private readonly store: RateStore = new MemoryRateStore(),
    limits: Partial<ThrottleLimits> = {},
  ) {
    this.limits = { ...DEFAULT_THROTTLE_LIMITS, ...limits };
  }

  /** Seconds until the next attempt is allowed, or 0 when it is allowed now. */
  async retryAfterSeconds(ip: string, email: string, now = Date.now()): Promise<number> {
    const { windowMs } = this.limits;
    const waits = await Promise.all(
      this.rules(ip, email).map(async ({ key, free, maxSeconds }) => {
        const { count, newest } = await this.store.recent(key, windowMs, now);
        const delay = delaySeconds(count, free, maxSeconds);
        if (delay === 0 || newest === null) return 0;
        return Math.max(0, Math.ceil((newest + delay * 1000 - now) / 1000));
      }),
    );
    return Math.max(0, ...waits);
  }

  async recordFailure(ip: string, email: string, now = Date.now()): Promise<void> {
    const { windowMs } = this.limits;
    await Promise.all(this.rules(ip, email).map(({ key }) => this.store.add(key, windowMs, now)));
  }

  recordSuccess(ip: string, email: string): Promise<void> {
    return this.store.clear(this.pairKey(ip, email));
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private pairKey(ip: string, email: string) {
    return `login:pair:${ip}|${email.toLowerCase()}`;
  }

  private rules(ip: string, email: string): DelayRule[] {
    const { maxDelaySeconds, maxAddressDelaySeconds } = this.limits;
    return [
      { key: this.pairKey(ip, email), free: this.limits.perEmailAndAddress, maxSeconds: maxDelaySeconds },
      { key: `login:address:${ip}`, free: this.limits.perAddress, maxSeconds: maxAddressDelaySeconds },
      {
        key: `login:account:${email.toLowerCase()}`,
        free: this.limits.perAccount,
        maxSeconds: maxDelaySeconds,
      },
    ];
  }
}
