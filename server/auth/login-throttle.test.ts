import { describe, expect, it } from 'vitest';
import { LoginThrottle } from './login-throttle';

describe('login throttle', () => {
  it('refuses an e-mail from one address after too many failures, until the window passes', () => {
    const throttle = new LoginThrottle(3, 60_000);
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(throttle.retryAfterSeconds('10.0.0.1', 'ada@example.com', t0 + i)).toBe(0);
      throttle.recordFailure('10.0.0.1', 'ADA@example.com', t0 + i);
    }
    expect(throttle.retryAfterSeconds('10.0.0.1', 'ada@example.com', t0 + 10)).toBe(60);
    // Another address, or another e-mail, is not affected.
    expect(throttle.retryAfterSeconds('10.0.0.2', 'ada@example.com', t0 + 10)).toBe(0);
    expect(throttle.retryAfterSeconds('10.0.0.1', 'bob@example.com', t0 + 10)).toBe(0);
    expect(throttle.retryAfterSeconds('10.0.0.1', 'ada@example.com', t0 + 60_001)).toBe(0);
  });

  it('forgets the failures after a successful sign-in', () => {
    const throttle = new LoginThrottle(2, 60_000);
    throttle.recordFailure('::1', 'ada@example.com');
    throttle.recordSuccess('::1', 'ada@example.com');
    throttle.recordFailure('::1', 'ada@example.com');
    expect(throttle.retryAfterSeconds('::1', 'ada@example.com')).toBe(0);
  });
});
