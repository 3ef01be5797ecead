// @vitest-environment jsdom
// The stop-gap Dataset tab (until the dataset module lands): two wizard steps from the schema, Next Step
// and Previous, Save Changes handing the values on, and no Save without a dataset.

import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { createExampleAppData, getFormState, type AppData } from '../../../engine';
import { browserRegistry } from '../../../renderers/browser-registry';
import { cleanBrowserAfterEach } from '../../test-support/page-test';
import { DatasetTab, useDataset } from './dataset-fallback';

cleanBrowserAfterEach();
const stock = browserRegistry().getProblem('stock-price-prediction');
const example = createExampleAppData(stock);

function Tab({ initial, onSaved }: { initial: AppData; onSaved: (next: AppData) => void }) {
  const [appData, setAppData] = useState(initial);
  const dataset = useDataset({ problem: stock, appData, onChange: setAppData, user: null });
  const state = getFormState(stock, appData, example.context);
  return (
    <DatasetTab
      problem={stock}
      appData={appData}
      context={example.context}
      state={state}
      dataset={dataset}
      onChange={setAppData}
      onSaved={onSaved}
    />
  );
}

describe('the stop-gap Dataset tab', () => {
  it('steps from Upload Data to the preprocess sections and saves them', () => {
    const onSaved = vi.fn();
    render(<Tab initial={example.appData} onSaved={onSaved} />);
    expect(screen.getByRole('heading', { name: 'Upload Data' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    expect(screen.getByRole('heading', { name: 'Data Features' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Previous' }));
    expect(screen.getByRole('heading', { name: 'Upload Data' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    return vi.waitFor(() => expect(onSaved).toHaveBeenCalledWith(example.appData));
  });

  it('holds Save Changes back without a dataset', () => {
    const onSaved = vi.fn();
    const { dataset: _none, ...rest } = example.appData;
    void _none;
    render(<Tab initial={rest} onSaved={onSaved} />);
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    const save = screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement;
    // The engine already holds Save back while the dataset is missing (its required message).
    expect(save.disabled).toBe(true);
    expect(onSaved).not.toHaveBeenCalled();
  });
});
