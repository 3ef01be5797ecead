// @vitest-environment jsdom
// Noise what-if in the output view (issue #12): the 'Re-run under…' choices come from the server (where the
// output ran, the problem's noise models and devices) and the account's device list; a re-run posts the
// chosen backend and says which output it started; a refusal shows the server's sentence; nothing is drawn
// for an output the server would not re-run. The API is faked at the fetch boundary.

import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../../test-support/fake-api';
import { cleanBrowserAfterEach, storeToken } from '../../../test-support/page-test';
import { backendOptions, type WhatIfChoices } from './what-if-api';
import { WHAT_IF_BUTTON, WHAT_IF_LABEL, WhatIfControl } from './what-if-control';

beforeEach(storeToken);
cleanBrowserAfterEach();

const choices = (over: Partial<WhatIfChoices> = {}): WhatIfChoices => ({
  available: true,
  backend: 'ideal',
  noise_models: ['fake_brisbane', 'fake_kyiv'],
  devices: ['ibm_brisbane', 'ibm_kyiv'],
  ...over,
});

const device = (name: string) => ({
  name,
  qubits: 127,
  status: 'online',
  status_message: '',
  pending_jobs: 3,
});

function setup(given: WhatIfChoices, post: { status: number; body: unknown }, devices: string[] | null = []) {
  const calls = fakeApi({
    'GET /api/application-outputs/12/what-if': () => ({ body: { success: true, data: given } }),
    'GET /api/quantum-devices': () =>
      devices
        ? { body: { success: true, data: { devices: devices.map(device) } } }
        : { status: 400, body: { success: false, detail: 'No IBM Quantum token is stored' } },
    'POST /api/application-outputs/12/what-if': () => post,
  });
  const onStarted = vi.fn();
  render(<WhatIfControl outputId={12} onStarted={onStarted} />);
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
          data: { output_id: 31, name: 'Fraud #31 (what-if: fake_kyiv)' },
        },
      },
      ['ibm_kyiv'],
    );
    const select = await screen.findByLabelText(WHAT_IF_LABEL);
    const labels = [...(select as HTMLSelectElement).options].map((o) => o.text);
    // Where it ran (ideal) is not offered; of the devices only the one the account may use.
    expect(labels).toEqual([
      'Choose a backend',
      'Noise model fake_brisbane',
      'Noise model fake_kyiv',
      'IBM device ibm_kyiv',
    ]);
    const button = screen.getByRole('button', { name: WHAT_IF_BUTTON });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(select, { target: { value: 'noise:fake_kyiv' } });
    fireEvent.click(button);
    expect((await screen.findByRole('status')).textContent).toBe(
      'Re-run started as output 31: Fraud #31 (what-if: fake_kyiv)',
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
      'ibm_kyiv',
      'ibm_brisbane',
    ]);
    expect(onDevice.map((o) => o.key)).toEqual([
      'ideal',
      'noise:fake_brisbane',
      'noise:fake_kyiv',
      'device:ibm_brisbane',
    ]);
  });
});
