import { describe, expect, it } from 'vitest';
import { realDeviceSelect } from '../fields/real-device-options';

const schema = [
  { value: 'ibm_kyiv', label: 'ibm_kyiv' },
  { value: 'ibm_torino', label: 'ibm_torino' },
];

describe('realDeviceSelect', () => {
  it('keeps the schema list without the account list, with the note the app gave', () => {
    expect(realDeviceSelect(schema, undefined)).toEqual({ options: schema });
    expect(realDeviceSelect(schema, { note: 'No token.' })).toEqual({ options: schema, note: 'No token.' });
  });

  it('keeps the schema list and names the account devices when they share none', () => {
    const out = realDeviceSelect(schema, {
      devices: [{ name: 'ibm_fez', qubits: 156, status: 'online', pending_jobs: 0 }],
    });
    expect(out.options).toEqual(schema);
    expect(out.note).toBe(
      'Your IBM token may use ibm_fez; none of them is in this list, so the list is shown as is.',
    );
  });
});
