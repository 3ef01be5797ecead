// @vitest-environment jsdom
// The brain tumor Dataset tab's sub-tabs and its Train sub-tab as a user meets them: which sub-tab opens, the
// .mat refusals in the spec's words, the sample (button and drag), the inspection tables and thumbnail, another
// slice, the training range messages against the dataset's slice count, and Next Step. Only fetch is mocked.

import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useEffect, useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDefaultAppData, type AppData } from '../../../../../engine';
import { browserRegistry } from '../../../../../renderers/browser-registry';
import { setAccessToken } from '../../../../api/client';
import { cleanBrowserAfterEach } from '../../../../test-support/page-test';
import type { WorkspaceUser } from '../../workspace-types';
import type { MatPreview } from './mat-api';
import { ImageDatasetTab, usesImageDataset } from '../image-dataset-tab';
import { SYNTHETIC_NOTICE } from './train-panel';

cleanBrowserAfterEach();
const brain = browserRegistry().getProblem('brain-tumor');
const sample = brain.dataset.samples[0]!;
/** A new application's app_data, as the server creates it. */
const fresh = createDefaultAppData(brain);
const user: WorkspaceUser = { id: 7, name: 'ada', email: 'ada@example.com' };
const UPLOADED = '/api/download/scan.mat/7/ada%40example.com';

/** A mat-inspect result for a dataset of `count` slices, showing slice `index` (generated, small). */
function previewOf(count: number, index: number): MatPreview {
  return {
    count,
    class_counts: { meningioma: 10, glioma: 20, pituitary: count - 30 },
    patients: 4,
    image_size: [128, 128],
    format: 'mat-v7.3',
    image_data: Array.from({ length: Math.min(count, 30) }, (_, i) => ({
      index: i + 1,
      label: (i % 3) + 1,
      label_name: ['meningioma', 'glioma', 'pituitary'][i % 3]!,
      pid: `P${i % 4}`,
      height: 128,
      width: 128,
      min: 0,
      max: 255,
      mean: 41.5 + i,
    })),
    slice: {
      index,
      label_name: 'glioma',
      thumbnail_png: 'iVBORw0KGgo=',
      tumor_border: Array.from({ length: 40 }, (_, i) => [10 + i, 20 + (i % 5)] as [number, number]),
      tumor_mask: {
        area: 57,
        bbox: [10, 20, 49, 24],
        rows: [
          [20, 10, 22],
          [21, 11, 23],
        ],
      },
    },
  };
}

const count = 50;
let uploadReply: { status: number; body: unknown };
/** When set, the upload answers only once this promise resolves. */
let uploadGate: Promise<void> | null = null;
let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  setAccessToken('token-1');
  uploadReply = { status: 201, body: { success: true, url: UPLOADED, count: 50 } };
  uploadGate = null;
  fetchMock = vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    if (url.pathname.startsWith('/api/upload/') && init?.method === 'POST')
      return (uploadGate ?? Promise.resolve()).then(
        () => new Response(JSON.stringify(uploadReply.body), { status: uploadReply.status }),
      );
    if (url.pathname === '/api/datasets/mat-preview') {
      const index = Number(url.searchParams.get('index'));
      return Promise.resolve(
        new Response(JSON.stringify({ success: true, data: previewOf(count, index) }), { status: 200 }),
      );
    }
    return Promise.resolve(new Response('{}', { status: 404 }));
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => setAccessToken(null));

const seen: { appData: AppData } = { appData: {} };
function Tab({ initial, onSaved = vi.fn() }: { initial: AppData; onSaved?: (next: AppData) => void }) {
  const [appData, setAppData] = useState(initial);
  useEffect(() => {
    seen.appData = appData;
  });
  return (
    <ImageDatasetTab
      problem={brain}
      appData={appData}
      context={{}}
      user={user}
      applicationId={5}
      onChange={setAppData}
      onSaved={onSaved}
      onPredicted={vi.fn()}
      readPixels={() => Promise.reject(new Error('unused'))}
      looksLikeMri={() => true}
    />
  );
}

const selectedTab = () =>
  screen.getAllByRole('tab').find((t) => t.getAttribute('aria-selected') === 'true')?.textContent;
const matFile = (name: string) =>
  new File(['MATLAB 7.3 MAT-file'], name, { type: 'application/octet-stream' });
const previewCalls = () =>
  fetchMock.mock.calls.map(([u]) => String(u)).filter((u) => u.startsWith('/api/datasets/mat-preview'));

describe('the brain tumor Dataset tab', () => {
  it('is chosen by the schema: a predict block or .mat datasets', () => {
    expect(usesImageDataset(brain)).toBe(true);
    expect(usesImageDataset(browserRegistry().getProblem('stock-price-prediction'))).toBe(false);
  });

  it('opens a new application on Train Brain Tumor and one with a dataset on Predict Brain Tumor', async () => {
    render(<Tab initial={fresh} />);
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual([
      'Predict Brain Tumor',
      'Train Brain Tumor',
    ]);
    expect(selectedTab()).toBe('Train Brain Tumor');
    fireEvent.click(screen.getByRole('tab', { name: 'Predict Brain Tumor' }));
    expect(screen.getByRole('button', { name: 'Predict Now' })).toBeTruthy();
  });

  it('opens on Predict when the application has a dataset', () => {
    render(
      <Tab initial={{ dataset: { kind: 'sample', sample: sample.id, file: `samples/${sample.file}` } }} />,
    );
    expect(selectedTab()).toBe('Predict Brain Tumor');
  });
});

describe('Train Brain Tumor', () => {
  it('refuses a file that is not .mat and a drop without a file, in the spec words', () => {
    render(<Tab initial={fresh} />);
    fireEvent.change(screen.getByLabelText('Upload .mat file'), { target: { files: [matFile('scan.csv')] } });
    expect(screen.getByRole('alert').textContent).toBe('Invalid file format. Please select a .mat file.');
    fireEvent.drop(screen.getByTestId('mat-dropzone'), {
      dataTransfer: { files: [], getData: () => '' },
    });
    expect(screen.getByRole('alert').textContent).toBe('Please upload a .mat file!');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('requires a file for Next Step', () => {
    const onSaved = vi.fn();
    render(<Tab initial={fresh} onSaved={onSaved} />);
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    expect(screen.getByText('Please upload a .mat file before proceeding!')).toBeTruthy();
    expect(onSaved).not.toHaveBeenCalled();
    // Choosing a dataset answers it.
    fireEvent.click(screen.getByRole('button', { name: sample.label }));
    expect(screen.queryByText('Please upload a .mat file before proceeding!')).toBeNull();
  });

  it("shows the server's parse refusal as it comes", async () => {
    uploadReply = {
      status: 400,
      body: {
        success: false,
        message: 'Error parsing file: not a MATLAB file',
        detail: 'Error parsing file: not a MATLAB file',
      },
    };
    render(<Tab initial={fresh} />);
    fireEvent.change(screen.getByLabelText('Upload .mat file'), { target: { files: [matFile('scan.mat')] } });
    expect((await screen.findByRole('alert')).textContent).toBe('Error parsing file: not a MATLAB file');
    expect(seen.appData.dataset?.file).toBeUndefined();
  });

  it('uploads a .mat file, stores its url and shows its tables and thumbnail', async () => {
    render(<Tab initial={fresh} />);
    fireEvent.change(screen.getByLabelText('Upload .mat file'), { target: { files: [matFile('scan.mat')] } });
    const imageData = await screen.findByRole('table', { name: 'Image Data' });
    const [, upload] = fetchMock.mock.calls[0]!;
    expect((upload as RequestInit).body).toBeInstanceOf(FormData);
    expect(((upload as RequestInit).body as FormData).get('file')).toBeInstanceOf(File);
    expect(seen.appData.dataset).toMatchObject({ kind: 'mat', name: 'scan.mat', file: UPLOADED });
    expect(previewCalls()[0]).toBe(
      `/api/datasets/mat-preview?url=${encodeURIComponent(UPLOADED)}&index=1&rows=30`,
    );
    expect(within(imageData).getAllByRole('row')).toHaveLength(31);
    expect(within(imageData).getAllByRole('row')[1]!.textContent).toBe('11 (meningioma)P0128×128025541.50');
    expect(screen.getByRole('table', { name: 'Tumor Border' })).toBeTruthy();
    expect(within(screen.getByRole('table', { name: 'Tumor Mask' })).getAllByRole('row')).toHaveLength(3);
    expect(screen.getByAltText('Slice 1 with its tumor mask').getAttribute('src')).toBe(
      'data:image/png;base64,iVBORw0KGgo=',
    );
    // An upload is not the synthetic sample.
    expect(screen.queryByText(SYNTHETIC_NOTICE)).toBeNull();
  });

  it('keeps a range edited while the upload was under way', async () => {
    let open!: () => void;
    uploadGate = new Promise((resolve) => (open = resolve));
    render(<Tab initial={fresh} />);
    fireEvent.change(screen.getByLabelText('Upload .mat file'), { target: { files: [matFile('scan.mat')] } });
    expect(screen.getByText('Uploading and reading the file…')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('To Index'), { target: { value: '40' } });
    open();
    await screen.findByRole('table', { name: 'Image Data' });
    expect(seen.appData.dataset).toMatchObject({
      file: UPLOADED,
      training_range: { from_index: 1, to_index: 40 },
    });
  });

  it('takes the sample dragged onto the drop zone, and shows another slice on request', async () => {
    render(<Tab initial={fresh} />);
    const button = screen.getByRole('button', { name: sample.label });
    expect(button.getAttribute('draggable')).toBe('true');
    const data = new Map<string, string>();
    fireEvent.dragStart(button, { dataTransfer: { setData: (k: string, v: string) => data.set(k, v) } });
    fireEvent.drop(screen.getByTestId('mat-dropzone'), {
      dataTransfer: { files: [], getData: (k: string) => data.get(k) ?? '' },
    });
    await screen.findByAltText('Slice 1 with its tumor mask');
    expect(seen.appData.dataset).toMatchObject({
      kind: 'sample',
      sample: sample.id,
      file: `samples/${sample.file}`,
    });
    expect(screen.getByTestId('mat-facts').textContent).toContain('50 slices from 4 patients');
    fireEvent.change(screen.getByLabelText('Slice'), { target: { value: '60' } });
    expect(screen.getByText('Slice must be a whole number from 1 to 50')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Slice'), { target: { value: '7' } });
    fireEvent.click(screen.getByRole('button', { name: 'Show slice' }));
    await screen.findByAltText('Slice 7 with its tumor mask');
    expect(previewCalls().at(-1)).toContain('index=7');
  });

  it("checks the training range against the dataset's slice count, then Next Step keeps the values", async () => {
    const onSaved = vi.fn();
    render(<Tab initial={fresh} onSaved={onSaved} />);
    fireEvent.click(screen.getByRole('button', { name: sample.label }));
    await screen.findByRole('table', { name: 'Image Data' });
    // The default range 1..100 does not fit 50 slices.
    await screen.findByText('To Index must not exceed 50');
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    expect(onSaved).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('To Index'), { target: { value: '40' } });
    fireEvent.change(screen.getByLabelText('From Index'), { target: { value: '45' } });
    expect(screen.getByText('From Index must be less than To Index')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('From Index'), { target: { value: '5' } });
    await waitFor(() => expect(screen.queryByText('From Index must be less than To Index')).toBeNull());
    // The split choice comes from the schema too.
    fireEvent.change(screen.getByLabelText(/Validation Split/), { target: { value: '1' } }); // the second option
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    expect(onSaved).toHaveBeenCalledTimes(1);
    expect(onSaved.mock.calls[0]![0].dataset).toMatchObject({
      file: `samples/${sample.file}`,
      training_range: { from_index: 5, to_index: 40 },
      split: 'patient',
    });
  });
});
