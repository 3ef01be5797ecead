import { MemoryRateStore, RateLimiter, type RateRule, type RateStore } from '../platform/rate-limiter';

export interface ThrottleLimits {
  /** Failures allowed for one e-mail from one address within the window. */
  perEmailAndAddress: number;
  /** Failures allowed from one address across all e-mails within the window (password spraying). */
  perAddress: number;
  /**
   * Failures allowed for one e-mail across all addresses (guessing one account from many
   * addresses). Higher than the others: anyone can spend it, and it locks the account's owner out.
   */
  perAccount: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE_LIMITS: ThrottleLimits = {
  perEmailAndAddress: 10,
  perAddress: 50,
  perAccount: 100,
  windowMs: 15 * 60 * 1000,
};

/**
 * Slows down password guessing: after too many failed sign-ins for one e-mail from one address,
 * from one address across e-mails, or for one e-mail across addresses, within the window, attempts
 * are refused until it has passed.
 * The address is the request's (request.ip), which follows X-Forwarded-For only from the proxies
 * TRUST_PROXY names. A success forgets the failures of that e-mail from that address, not the
 * address's total (one account of one's own must not reset a spraying count).
 */
export class LoginThrottle {
  private readonly limits: ThrottleLimits;
  private readonly limiter: RateLimiter;

  constructor(store: RateStore = new MemoryRateStore(), limits: Partial<ThrottleLimits> = {}) {
    this.limits = { ...DEFAULT_THROTTLE_LIMITS, ...limits };
    this.limiter = new RateLimiter(store);
  }

  /** Seconds until the next attempt is allowed, or 0 when it is allowed now. */
  retryAfterSeconds(ip: string, email: string, now = Date.now()): Promise<number> {
    return this.limiter.retryAfterSeconds(this.rules(ip, email), now);
  }

  recordFailure(ip: string, email: string, now = Date.now()): Promise<void> {
    return this.limiter.record(this.rules(ip, email), now);
  }

  recordSuccess(ip: string, email: string): Promise<void> {
    return this.limiter.clear(this.pairKey(ip, email));
  }

  close(): Promise<void> {
    return this.limiter.close();
  }

  private pairKey(ip: string, email: string) {
    return `login:pair:${ip}|${email.toLowerCase()}`;
  }

  private rules(ip: string, email: string): RateRule[] {
    const { windowMs } = this.limits;
    return [
      { key: this.pairKey(ip, email), max: this.limits.perEmailAndAddress, windowMs },
      { key: `login:address:${ip}`, max: this.limits.perAddress, windowMs },
      { key: `login:account:${email.toLowerCase()}`, max: this.limits.perAccount, windowMs },
    ];
  }
}
