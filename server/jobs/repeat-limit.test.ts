// A job repeated with n seeds makes n runs: its time limit is n times WORKER_TIMEOUT_SECONDS. The
// count comes from the envelope's extension; anything outside the form's 1..10 counts as one run.

import { describe, expect, it } from 'vitest';
import { repeatCount } from './job-runner';

describe('repeatCount', () => {
  it('reads extension.repeats within 1..10, else one run', () => {
    expect(repeatCount({ repeats: 3 })).toBe(3);
    expect(repeatCount({ repeats: 10 })).toBe(10);
    expect(repeatCount({})).toBe(1);
    expect(repeatCount(null)).toBe(1);
    expect(repeatCount({ repeats: null })).toBe(1);
    expect(repeatCount({ repeats: 11 })).toBe(1);
    expect(repeatCount({ repeats: 2.5 })).toBe(1);
    expect(repeatCount({ repeats: '3' })).toBe(1);
  });
});
