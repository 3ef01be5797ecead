/**
 * Slows down password guessing: after `maxFailures` failed sign-ins for one e-mail from one address
 * within `windowMs`, further attempts are refused until the window has passed. Kept in memory per
 * server process (a restart forgets it; several servers each count their own attempts).
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures = 10,
    private readonly windowMs = 15 * 60 * 1000,
    private readonly maxKeys = 10_000,
  ) {}

  /** Seconds until the next attempt is allowed, or 0 when it is allowed now. */
  retryAfterSeconds(ip: string, email: string, now = Date.now()): number {
    const recent = this.recent(this.key(ip, email), now);
    if (recent.length < this.maxFailures) return 0;
    return Math.ceil((recent[0]! + this.windowMs - now) / 1000);
  }

  recordFailure(ip: string, email: string, now = Date.now()): void {
    const key = this.key(ip, email);
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.set(key, recent);
    if (this.failures.size > this.maxKeys) this.prune(now);
  }

  recordSuccess(ip: string, email: string): void {
    this.failures.delete(this.key(ip, email));
  }

  private key(ip: string, email: string) {
    return `${ip}|${email.toLowerCase()}`;
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((at) => now - at < this.windowMs);
  }

  private prune(now: number) {
    for (const [key, times] of this.failures) {
      if (times.every((at) => now - at >= this.windowMs)) this.failures.delete(key);
    }
  }
}
