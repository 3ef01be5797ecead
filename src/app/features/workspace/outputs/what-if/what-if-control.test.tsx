// @vitest-environment jsdom
// Noise what-if in the output view (issue #12): the 'Re-run under…' choices come from the server (where the
// output ran, the problem's noise models and devices) and the account's device list; a re-run posts the
// chosen backend and says which output it started; a refusal shows the server's sentence; nothing is drawn
// for an output the server would not re-run. The API is faked at the fetch boundary.

import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../../../test-support/fake-api';
import { cleanBrowserAfterEach, storeToken } from '../../../../test-support/page-test';
import { backendOptions, type WhatIfChoices } from './what-if-api';
import { WHAT_IF_BUTTON, WHAT_IF_LABEL, WhatIfControl } from './what-if-control';

beforeEach(storeToken);
cleanBrowserAfterEach();

// The labels are the schema's (defs.json noiseModel x-field.labels; realDevice has none: its names).
const choices = (over: Partial<WhatIfChoices> = {}): WhatIfChoices => ({
  available: true,
  backend: 'ideal',
  backend_label: 'Ideal simulator',
  noise_models: [
    { name: 'fake_brisbane', label: 'IBM Brisbane (snapshot)' },
    { name: 'fake_kyiv', label: 'IBM Kyiv (snapshot)' },
  ],
  devices: [
    { name: 'ibm_brisbane', label: 'ibm_brisbane' },
    { name: 'ibm_kyiv', label: 'ibm_kyiv' },
  ],
  ...over,
});
const ADAM_REFUSED =
  'ADAM needs the exact gradient of a simulation: choose COBYLA or SPSA for a real device.';

const device = (name: string) => ({
  name,
  qubits: 127,
  status: 'online',
  status_message: '',
  pending_jobs: 3,
});

function setup(
  given: WhatIfChoices,
  post: { status: number; body: unknown },
  devices: string[] | null = [],
  hasStoredToken = true,
) {
  const calls = fakeApi({
    'GET /api/application-outputs/12/what-if': () => ({ body: { success: true, data: given } }),
    'GET /api/quantum-devices': () =>
      devices
        ? { body: { success: true, data: { devices: devices.map(device) } } }
        : { status: 400, body: { success: false, detail: 'No IBM Quantum token is stored' } },
    'POST /api/application-outputs/12/what-if': () => post,
  });
  const onStarted = vi.fn();
  render(<WhatIfControl outputId={12} onStarted={onStarted} hasStoredToken={hasStoredToken} />);
  return { calls, onStarted };
}

describe('WhatIfControl', () => {
  it('re-runs under the chosen noise model and names the new output', async () => {
    const { calls, onStarted } = setup(
      choices(),
      {
        status: 201,
        body: {
          success: true,
          message: 'Application is running.',
          data: { output_id: 31, name: 'Fraud #31 (what-if: IBM Kyiv (snapshot))' },
        },
      },
      ['ibm_kyiv'],
    );
    const select = await screen.findByLabelText(WHAT_IF_LABEL);
    const labels = [...(select as HTMLSelectElement).options].map((o) => o.text);
    // Where it ran (ideal) is not offered; of the devices only the one the account may use.
    expect(labels).toEqual([
      'Choose a backend',
      'IBM Brisbane (snapshot)',
      'IBM Kyiv (snapshot)',
      'ibm_kyiv (127 qubits, 3 pending jobs)',
    ]);
    const groups = [...select.querySelectorAll('optgroup')].map((g) => g.label);
    expect(groups).toEqual(['Noise models', 'IBM devices']);
    expect(screen.getByText('Ran on Ideal simulator.')).toBeTruthy();
    const button = screen.getByRole('button', { name: WHAT_IF_BUTTON });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(select, { target: { value: 'noise:fake_kyiv' } });
    fireEvent.click(button);
    expect((await screen.findByRole('status')).textContent).toBe(
      'Re-run started as output 31: Fraud #31 (what-if: IBM Kyiv (snapshot))',
    );
    const posted = calls.find((c) => c.method === 'POST');
    expect(posted?.body).toEqual({ backend: { noise_model: 'fake_kyiv' } });
    expect(onStarted).toHaveBeenCalledWith(31);
  });

  it("shows the server's refusal", async () => {
    const detail =
      'Running on the IBM device ibm_kyiv needs an IBM Quantum token: add yours in your profile first.';
    setup(
      choices({ backend: { noise_model: 'fake_kyiv' } }),
      {
        status: 400,
        body: { success: false, detail, errors: [{ field: '/backend', message: detail }] },
      },
      ['ibm_kyiv'],
    );
    const select = await screen.findByLabelText(WHAT_IF_LABEL);
    fireEvent.change(select, { target: { value: 'ideal' } });
    fireEvent.click(screen.getByRole('button', { name: WHAT_IF_BUTTON }));
    expect((await screen.findByRole('alert')).textContent).toBe(detail);
  });

  it("shows a backend the configuration may not use disabled, with the schema's reason", async () => {
    const refusedDevice = (name: string) => ({ name, label: name, refused: ADAM_REFUSED });
    setup(
      choices({ devices: [refusedDevice('ibm_brisbane'), refusedDevice('ibm_kyiv')] }),
      { status: 500, body: {} },
      ['ibm_kyiv'],
    );
    const select = (await screen.findByLabelText(WHAT_IF_LABEL)) as HTMLSelectElement;
    const device = [...select.options].find((o) => o.value === 'device:ibm_kyiv')!;
    expect(device.disabled).toBe(true);
    expect(device.title).toBe(ADAM_REFUSED);
    expect([...select.options].find((o) => o.value === 'noise:fake_kyiv')!.disabled).toBe(false);
    expect(screen.getAllByText(ADAM_REFUSED)).toHaveLength(1);
  });

  it('does not ask for the account devices when the profile stores no IBM token', async () => {
    const { calls } = setup(choices(), { status: 500, body: {} }, null, false);
    const select = (await screen.findByLabelText(WHAT_IF_LABEL)) as HTMLSelectElement;
    expect(calls.some((c) => c.path.endsWith('/quantum-devices'))).toBe(false);
    expect([...select.options].some((o) => o.value.startsWith('device:'))).toBe(false);
    expect([...select.options].some((o) => o.value === 'noise:fake_kyiv')).toBe(true);
  });

  it('draws nothing for an output the server would not re-run', async () => {
    const { calls } = setup(choices({ available: false }), { status: 500, body: {} });
    await waitFor(() => expect(calls.some((c) => c.path.endsWith('/what-if'))).toBe(true));
    expect(screen.queryByLabelText(WHAT_IF_LABEL)).toBeNull();
  });
});

describe('backendOptions', () => {
  it('offers no device without the account list, and leaves out where the output ran', () => {
    const options = backendOptions(choices({ backend: { noise_model: 'fake_brisbane' } }), []);
    expect(options.map((o) => o.key)).toEqual(['ideal', 'noise:fake_kyiv']);
    const onDevice = backendOptions(choices({ backend: { device: 'ibm_kyiv' } }), [
      { name: 'ibm_kyiv', qubits: 127, pending_jobs: 1 },
      { name: 'ibm_brisbane', qubits: 127, pending_jobs: 1 },
    ]);
    expect(onDevice.map((o) => o.key)).toEqual([
      'ideal',
      'noise:fake_brisbane',
      'noise:fake_kyiv',
      'device:ibm_brisbane',
    ]);
    expect(onDevice.at(-1)?.label).toBe('ibm_brisbane (127 qubits, 1 pending job)');
  });
});
