// @vitest-environment jsdom
// The gallery page with the schemas Vite bundles (import.meta.glob): who may see it, every problem
// listed (the unlisted one marked), and the job body following an edit at once.

import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { createExampleAppData, mapJobBody } from '../../../engine';
import { browserRegistry } from '../../../renderers/browser-registry';
import { AuthProvider } from '../auth/auth-context';
import { SchemaGalleryPage } from './schema-gallery-page';

beforeAll(() => {
  const g = globalThis as Record<string, unknown>;
  g.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
});
afterEach(() => {
  cleanup();
  vi.unstubAllEnvs();
});

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
    expect(screen.getByText(/Illustrative/)).toBeTruthy();

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
});
