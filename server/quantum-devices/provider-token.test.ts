import { describe, expect, it } from 'vitest';
import type { JobEnvelope } from '../jobs/worker-protocol';
import { withProviderToken } from './provider-token';

// A device run without a custom token gets the owner's stored IBM token in the envelope as its worker
// starts (worker/tests/unit/test_quantum_devices.py checks the worker uses it and never prints it).

const dataset = {
  path: '/d.csv',
  sha256: 'a'.repeat(64),
  row_count: 3,
  columns: ['x'],
  label: 'd',
  synthetic: false,
};
const envelope = (params: Record<string, unknown>): JobEnvelope => ({
  kind: 'portfolio-optimization',
  job_id: '5',
  params,
  extension: { dataset, seed: 42 },
});

describe('withProviderToken', () => {
  const lookups: number[] = [];
  const lookup = async (ownerId: number) => {
    lookups.push(ownerId);
    return ownerId === 7 ? 'stored-token' : null;
  };

  it('adds the stored token to a device run without a custom one, looked up for the owner', async () => {
    const out = await withProviderToken(envelope({ use_quantum_simulator: false }), 7, lookup);
    expect(out.extension).toEqual({ dataset, seed: 42, ibm_token: 'stored-token' });
    expect(lookups).toEqual([7]);
  });

  it('leaves simulator runs, custom tokens and owners without a token alone', async () => {
    lookups.length = 0;
    const simulator = envelope({ use_quantum_simulator: true });
    expect(await withProviderToken(simulator, 7, lookup)).toBe(simulator);
    const custom = envelope({ use_quantum_simulator: false, actual_quantum_device_token: 'mine' });
    expect(await withProviderToken(custom, 7, lookup)).toBe(custom);
    expect(lookups).toEqual([]);
    const none = envelope({ use_quantum_simulator: false });
    expect(await withProviderToken(none, 8, lookup)).toBe(none);
    expect(await withProviderToken(none, 7, undefined)).toBe(none);
  });
});
