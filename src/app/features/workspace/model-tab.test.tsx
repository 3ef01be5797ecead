// @vitest-environment jsdom
// The Model Configurations tab's device list (issue #12) on the real stock price prediction schema: the
// picker's real-device select lists the devices the stored IBM token may use (GET /quantum-devices, asked
// only once the real-device select is shown), and keeps the schema's list with a one-line reason otherwise.

import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createExampleAppData } from '../../../engine';
import { browserRegistry } from '../../../renderers/browser-registry';
import { useEngineForm } from '../../../renderers';
import { account, fakeApi } from '../../test-support/fake-api';
import { cleanBrowserAfterEach, storeToken } from '../../test-support/page-test';
import { AuthProvider } from '../../session/auth-context';
import { ModelTab } from './model-tab';
import { deviceListFallback, NO_STORED_TOKEN_NOTE } from './use-real-devices';

const stock = browserRegistry().getProblem('stock-price-prediction');
const example = createExampleAppData(stock);
const context = { ...example.context, applicationId: 5, userId: 7 };
const SCHEMA_DEVICES = ['ibm_brisbane', 'ibm_kyiv', 'ibm_sherbrooke', 'ibm_torino'];
const DEVICES = 'GET /api/quantum-devices';
const ME = 'GET /api/users/me';
const withToken = () => ({ body: { success: true, data: { ...account, has_custom_ibmq_token: true } } });

function Tab() {
  return (
    <AuthProvider>
      <Form />
    </AuthProvider>
  );
}

function Form() {
  const form = useEngineForm(stock, example.appData, context);
  return (
    <ModelTab
      problem={stock}
      appData={form.appData}
      context={context}
      state={form.state}
      onChange={form.onChange}
      onSaved={() => undefined}
    />
  );
}

cleanBrowserAfterEach();

/** Opens the device modal in real-device mode once the signed-in user is read. */
async function openRealDevices(calls: { path: string }[]) {
  render(<Tab />);
  await waitFor(() => expect(calls.some((c) => c.path === '/api/users/me')).toBe(true));
  fireEvent.click(screen.getByRole('button', { name: 'Select Quantum Device' }));
  const dialog = screen.getByRole('dialog', { name: 'Quantum Device' });
  return dialog;
}

describe('ModelTab device list', () => {
  it('lists the devices the stored token may use, with qubits, status and queue', async () => {
    storeToken();
    const calls = fakeApi({
      [ME]: withToken,
      [DEVICES]: () => ({
        body: {
          success: true,
          data: {
            devices: [
              { name: 'ibm_kyiv', qubits: 127, status: 'online', pending_jobs: 3 },
              { name: 'ibm_torino', qubits: 133, status: 'offline', pending_jobs: 1 },
              { name: 'ibm_fez', qubits: 156, status: 'online', pending_jobs: 0 },
            ],
          },
        },
      }),
    });
    const dialog = await openRealDevices(calls);
    // In simulator mode nothing is asked.
    expect(calls.filter((c) => c.path === '/api/quantum-devices')).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole('checkbox', { name: 'Use Simulator' }));
    await within(dialog).findByText('Devices your stored IBM token may use, with their current queue.');
    const select = within(dialog).getByLabelText<HTMLSelectElement>(/^Quantum Device/);
    const texts = [...select.options].map((o) => o.textContent).filter((t) => t?.startsWith('ibm_'));
    expect(texts).toEqual([
      'ibm_kyiv — 127 qubits, online, 3 pending jobs',
      'ibm_torino — 133 qubits, offline, 1 pending job',
    ]);
    expect(calls.filter((c) => c.path === '/api/quantum-devices')).toHaveLength(1);
  });

  it.each([
    [400, 'No IBM Quantum token is stored: add yours in your profile.'],
    [503, 'IBM Quantum did not answer within 60 s: try again later.'],
  ])('keeps the schema list and says why when the list answers %i', async (status, detail) => {
    storeToken();
    const calls = fakeApi({
      [ME]: withToken,
      [DEVICES]: () => ({ status, body: { success: false, detail } }),
    });
    const dialog = await openRealDevices(calls);
    fireEvent.click(within(dialog).getByRole('checkbox', { name: 'Use Simulator' }));
    await within(dialog).findByText(deviceListFallback(detail));
    const select = within(dialog).getByLabelText<HTMLSelectElement>(/^Quantum Device/);
    const texts = [...select.options].map((o) => o.textContent).filter((t) => t?.startsWith('ibm_'));
    expect(texts).toEqual(SCHEMA_DEVICES);
    await waitFor(() => expect(select.disabled).toBe(false));
  });

  it('does not ask for the list when the profile has no stored token, and says so', async () => {
    storeToken();
    const calls = fakeApi({
      [ME]: () => ({ body: { success: true, data: { ...account, has_custom_ibmq_token: false } } }),
      [DEVICES]: () => ({ status: 400, body: { success: false, detail: 'No IBM Quantum token is stored' } }),
    });
    const dialog = await openRealDevices(calls);
    fireEvent.click(within(dialog).getByRole('checkbox', { name: 'Use Simulator' }));
    await within(dialog).findByText(deviceListFallback(NO_STORED_TOKEN_NOTE));
    const select = within(dialog).getByLabelText<HTMLSelectElement>(/^Quantum Device/);
    const texts = [...select.options].map((o) => o.textContent).filter((t) => t?.startsWith('ibm_'));
    expect(texts).toEqual(SCHEMA_DEVICES);
    expect(calls.filter((c) => c.path === '/api/quantum-devices')).toHaveLength(0);
  });
});
