// @vitest-environment jsdom
// The Dataset tab as a user meets it: choosing a sample, a local CSV or a link, the preview and data info,
// the messages of spec sections 4, 5 and 8, Remove, the two steps and Save Changes. Only fetch is mocked.

import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useEffect, useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createExampleAppData, getFormState, type AppData } from '../../../../../engine';
import { browserRegistry } from '../../../../../renderers/browser-registry';
import { setAccessToken } from '../../../../api/client';
import { cleanBrowserAfterEach } from '../../../../test-support/page-test';
import type { DatasetHandle, WorkspaceUser } from '../../workspace-types';
import { DatasetTab, useDataset } from './index';

cleanBrowserAfterEach();
const stock = browserRegistry().getProblem('stock-price-prediction');
const example = createExampleAppData(stock);
const sample = stock.dataset.samples[0]!;
const user: WorkspaceUser = { id: 7, name: 'ada', email: 'ada@example.com' };
const { dataset: _none, ...withoutDataset } = example.appData;
void _none;

const ROWS = 120; // above the example splitter's to_index (100)
const csvText = [
  'Date,Open,Close',
  ...Array.from({ length: ROWS }, (_, i) => `2024-01-${i},${i},${i + 1}`),
  '1,2',
]
  .join('\n')
  .concat('\n');

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  setAccessToken('token-1');
  fetchMock = vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (url.startsWith('/api/upload/') && init?.method === 'POST')
      return Promise.resolve(
        new Response(
          JSON.stringify({
            url: '/api/download/up.csv/7/ada%40example.com',
            rows: ROWS,
            columns: 3,
            dropped_rows: 1,
          }),
          { status: 201 },
        ),
      );
    if (url.startsWith('/api/download/') || url.startsWith('/api/datasets/fetch'))
      return Promise.resolve(new Response(csvText, { status: 200, headers: { 'content-type': 'text/csv' } }));
    return Promise.resolve(new Response('{}', { status: 404 }));
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
  setAccessToken(null);
});

// What the tab last rendered with, recorded after each render for the assertions.
const seen: { appData: AppData; handle: DatasetHandle | null } = { appData: {}, handle: null };
function Tab({
  initial,
  onSaved = vi.fn(),
  signedIn = user,
}: {
  initial: AppData;
  onSaved?: (next: AppData) => void;
  signedIn?: WorkspaceUser | null;
}) {
  const [appData, setAppData] = useState(initial);
  const dataset = useDataset({ problem: stock, appData, onChange: setAppData, user: signedIn });
  useEffect(() => {
    seen.appData = appData;
    seen.handle = dataset;
  });
  const context = dataset.parsed
    ? { rowCount: dataset.parsed.rowCount, columns: dataset.parsed.columns }
    : {};
  return (
    <DatasetTab
      problem={stock}
      appData={appData}
      context={context}
      state={getFormState(stock, appData, context)}
      dataset={dataset}
      onChange={setAppData}
      onSaved={onSaved}
    />
  );
}

const chooseFile = (file: File) =>
  fireEvent.change(screen.getByLabelText('Upload a dataset file'), { target: { files: [file] } });
const csvFile = () => new File([csvText], 'prices.csv', { type: 'text/csv' });

describe('Dataset tab: Upload Data', () => {
  it('shows the empty step: panels, drop zone, hint and no data info', () => {
    render(<Tab initial={withoutDataset} />);
    expect(screen.getByRole('heading', { name: 'Upload Datasets' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Sample Datasets' })).toBeTruthy();
    for (const s of stock.dataset.samples) expect(screen.getByRole('button', { name: s.label })).toBeTruthy();
    expect(screen.getByText('Drag and drop dataset components here...')).toBeTruthy();
    expect(screen.getByText(/same format as the sample datasets/)).toBeTruthy();
    expect(screen.getByTestId('data-info').textContent).toBe(
      'No data info to show. Please upload your dataset.',
    );
    expect(screen.queryByTestId('dataset-preview')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Remove' })).toBeNull();
  });

  it('a sample: read with the bearer token, 30 rows previewed, data info, app_data set; Remove clears it', async () => {
    render(<Tab initial={withoutDataset} />);
    fireEvent.click(screen.getByRole('button', { name: sample.label }));
    const preview = await screen.findByTestId('dataset-preview');
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe(`/api/download/${sample.file}/7/ada%40example.com`);
    expect(new Headers((init as RequestInit).headers).get('authorization')).toBe('Bearer token-1');
    expect(within(preview).getAllByRole('row')).toHaveLength(31); // header + 30
    expect(
      within(preview)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Date', 'Open', 'Close']);
    expect(screen.getByText('Only showing 30 rows')).toBeTruthy();
    expect(screen.getByTestId('data-info').textContent).toContain(`${ROWS} rows × 3 columns`);
    expect(screen.getByTestId('data-info').textContent).toContain('1 rows dropped');
    expect(screen.getByTestId('dataset-type').textContent).toBe(sample.label);
    expect(seen.appData.dataset).toMatchObject({
      kind: 'sample',
      sample: sample.id,
      name: sample.label,
      url: `samples/${sample.file}`,
    });

    fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    expect(seen.appData.dataset?.url).toBeUndefined();
    expect(seen.appData.dataset?.sample).toBeUndefined();
    expect(screen.queryByTestId('dataset-preview')).toBeNull();
    expect(screen.getByTestId('data-info').textContent).toBe(
      'No data info to show. Please upload your dataset.',
    );
    expect(screen.getByText('Drag and drop dataset components here...')).toBeTruthy();
  });

  it('a saved application: its dataset url is read and parsed on mount', async () => {
    render(<Tab initial={example.appData} />);
    await screen.findByTestId('dataset-preview');
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("refuses a link that is not http(s): 'Invalid URL. Please link to your CSV file URL.'", () => {
    // One home: platform.json's invalidUrl, the same text the schema's linkedUrlRule gives.
    expect(stock.platform.messages.invalidUrl).toBe('Invalid URL. Please link to your CSV file URL.');
    render(<Tab initial={withoutDataset} />);
    fireEvent.change(screen.getByLabelText('Dataset URL'), { target: { value: 'not a url' } });
    fireEvent.click(screen.getByRole('button', { name: 'Link URL' }));
    expect(screen.getByRole('alert').textContent).toBe('Invalid URL. Please link to your CSV file URL.');
    expect(seen.appData.dataset?.url).toBeUndefined();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('reads a linked URL through /api/datasets/fetch; a failed fetch shows the fetch error', async () => {
    fetchMock.mockImplementationOnce(() => Promise.resolve(new Response('{"detail":"no"}', { status: 502 })));
    render(<Tab initial={withoutDataset} />);
    fireEvent.change(screen.getByLabelText('Dataset URL'), {
      target: { value: 'https://example.com/x.csv' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Link URL' }));
    expect(
      await screen.findByText('Error fetching data from the URL. Please check the URL and try again.'),
    ).toBeTruthy();
    expect(fetchMock.mock.calls[0]![0]).toBe(
      `/api/datasets/fetch?url=${encodeURIComponent('https://example.com/x.csv')}`,
    );
    expect(seen.appData.dataset).toMatchObject({ kind: 'url', url: 'https://example.com/x.csv' });
    expect(screen.getByTestId('dataset-type').textContent).toBe('Link URL');
  });

  it("a chosen CSV that cannot be read says 'Error parsing file: {message}', not 'Please upload a file first'", async () => {
    const unreadable = csvFile();
    unreadable.text = () => Promise.reject(new Error('the file could not be read'));
    render(<Tab initial={withoutDataset} />);
    chooseFile(unreadable);
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Error parsing file: the file could not be read',
    );
    expect(screen.queryByTestId('dataset-preview')).toBeNull();
  });

  it("refuses a file that is not a CSV with the problem's message", () => {
    render(<Tab initial={withoutDataset} />);
    chooseFile(new File(['x'], 'data.xlsx'));
    expect(screen.getByRole('alert').textContent).toBe('Please upload a csv file');
    expect(seen.appData.dataset?.url).toBeUndefined();
  });
});

describe('Dataset tab: Preprocess Data and Save Changes', () => {
  it('Next Step and Previous move between the steps', () => {
    render(<Tab initial={example.appData} />);
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    expect(screen.getByRole('heading', { name: 'Data Features' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Upload Datasets' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Previous' }));
    expect(screen.getByRole('heading', { name: 'Upload Datasets' })).toBeTruthy();
  });

  it('a local CSV is previewed before upload; Save Changes uploads it and hands on pruned app_data with its url', async () => {
    const onSaved = vi.fn();
    render(<Tab initial={example.appData} onSaved={onSaved} />);
    await screen.findByTestId('dataset-preview');
    chooseFile(csvFile());
    await waitFor(() => expect(screen.getByTestId('dataset-type').textContent).toBe('CSV'));
    expect(seen.handle?.pendingFile?.name).toBe('prices.csv');
    await waitFor(() =>
      expect(screen.getByTestId('data-info').textContent).toContain(`${ROWS} rows × 3 columns`),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    const save = screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement;
    await waitFor(() => expect(save.disabled).toBe(false));
    fireEvent.click(save);
    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    const upload = fetchMock.mock.calls.find(([u]) => String(u).startsWith('/api/upload/'))!;
    expect(upload[0]).toBe('/api/upload/ada/ada%40example.com');
    const next = onSaved.mock.calls[0]![0] as AppData;
    expect(next.dataset).toMatchObject({
      kind: 'csv',
      name: 'prices.csv',
      url: '/api/download/up.csv/7/ada%40example.com',
    });
    expect(next.dataset?.sample).toBeUndefined();
    expect(next.preprocess).toEqual(example.appData.preprocess);
    // Back on the first step, and the uploaded file is not read again.
    expect(screen.getByRole('heading', { name: 'Upload Datasets' })).toBeTruthy();
  });

  it("the preview rounds long decimals (float32 prices) and keeps the file's digits in the title", async () => {
    render(<Tab initial={withoutDataset} />);
    const text = 'Date,Open,Close\n2024-01-02,142.5699920654297,0.000012345678\n2024-01-03,143.25,7\n';
    chooseFile(new File([text], 'floats.csv', { type: 'text/csv' }));
    const preview = await screen.findByTestId('dataset-preview');
    const cells = [...preview.querySelectorAll('tbody tr')].map((row) =>
      [...row.querySelectorAll('td')].map((td) => td.textContent),
    );
    expect(cells).toEqual([
      ['2024-01-02', '142.57', '0.00001235'],
      ['2024-01-03', '143.25', '7'],
    ]);
    expect(within(preview).getByText('142.57').getAttribute('title')).toBe('142.5699920654297');
    expect(within(preview).getByText('143.25').getAttribute('title')).toBeNull();
  });

  it("an upload failure shows 'Error uploading file. {detail}' and saves nothing", async () => {
    const onSaved = vi.fn();
    fetchMock.mockImplementation((input: RequestInfo | URL) =>
      Promise.resolve(
        String(input).startsWith('/api/upload/')
          ? new Response(JSON.stringify({ success: false, detail: 'The file is too large.' }), {
              status: 413,
            })
          : new Response(csvText, { status: 200 }),
      ),
    );
    render(<Tab initial={example.appData} onSaved={onSaved} />);
    chooseFile(csvFile());
    await waitFor(() => expect(screen.getByTestId('data-info').textContent).toContain('rows ×'));
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    const save = screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement;
    await waitFor(() => expect(save.disabled).toBe(false));
    fireEvent.click(save);
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Error uploading file. The file is too large.',
    );
    expect(onSaved).not.toHaveBeenCalled();
  });

  it("signed out, Save Changes of a chosen local file says 'Please login to save the application!' and uploads nothing", async () => {
    const onSaved = vi.fn();
    render(<Tab initial={withoutDataset} onSaved={onSaved} signedIn={null} />);
    chooseFile(csvFile());
    await waitFor(() => expect(screen.getByTestId('data-info').textContent).toContain('rows ×'));
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    const save = screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement;
    await waitFor(() => expect(save.disabled).toBe(false));
    fireEvent.click(save);
    expect((await screen.findByRole('alert')).textContent).toBe('Please login to save the application!');
    expect(fetchMock.mock.calls.some(([u]) => String(u).startsWith('/api/upload/'))).toBe(false);
    expect(onSaved).not.toHaveBeenCalled();
  });

  it("without a dataset Save Changes is held back and commit rejects with 'Please upload a file first'", async () => {
    render(<Tab initial={withoutDataset} />);
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    expect((screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement).disabled).toBe(true);
    await expect(seen.handle!.commit(withoutDataset)).rejects.toThrow('Please upload a file first');
  });

  it('the splitter cannot pass the parsed row count and Save Changes waits for a valid range', async () => {
    render(<Tab initial={example.appData} />);
    await screen.findByTestId('dataset-preview');
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    const splitter = document.querySelector('[data-field="splitter"]') as HTMLElement;
    fireEvent.change(within(splitter).getByLabelText('To Index'), { target: { value: String(ROWS + 10) } });
    expect(await screen.findByText(`To Index cannot exceed ${ROWS}`)).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Save Changes' }) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe('Dataset tab: other problems, from their schema files', () => {
  function Other({ problemId }: { problemId: string }) {
    const problem = browserRegistry().getProblem(problemId);
    const [appData, setAppData] = useState<AppData>({});
    const dataset = useDataset({ problem, appData, onChange: setAppData, user });
    return (
      <DatasetTab
        problem={problem}
        appData={appData}
        context={{}}
        state={getFormState(problem, appData, {})}
        dataset={dataset}
        onChange={setAppData}
        onSaved={vi.fn()}
      />
    );
  }

  it('a CSV problem whose dataset form has a preprocess-step section draws it on the second step', () => {
    render(<Other problemId="fraud-detection" />);
    expect(screen.getAllByLabelText('Dataset URL')).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    expect(screen.getByRole('heading', { name: 'Data Split' })).toBeTruthy();
  });

  it("a problem whose dataset is not a CSV keeps the renderers' own file picker and parses nothing", () => {
    render(<Other problemId="brain-tumor" />);
    expect(screen.queryByRole('heading', { name: 'Upload Datasets' })).toBeNull();
    expect(screen.getByLabelText('Upload a dataset file')).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
