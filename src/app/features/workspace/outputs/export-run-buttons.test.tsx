// @vitest-environment jsdom
// 'Download as Python script' and 'Download as notebook' in the output head both output pages share:
// shown for a completed training only; each fetches its export with the bearer token and saves it under
// the server's file name; a refusal is shown in the server's words.

import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setAccessToken } from '../../../api/client';
import type { OutputDetail } from '../../../api/outputs';
import { completedOutput } from '../../../test-support/output-fixtures';
import { cleanBrowserAfterEach } from '../../../test-support/page-test';
import type { LiveOutput } from './detail/output-parts';
import { OutputSummary } from './detail/output-summary';
import { EMPTY_LIVE } from './output-rules';

cleanBrowserAfterEach();

const RECORD = { config: { epochs: 5 }, dataset_sha256: 'ab'.repeat(32), seed: 42, versions: {} };

function liveOutput(over: Partial<OutputDetail> = {}): LiveOutput {
  const detail = completedOutput({ id: 9, name: 'Run 9', run_record: RECORD, ...over });
  return {
    detail,
    live: EMPTY_LIVE,
    status: detail.status,
    ongoing: false,
    error: null,
    stopping: false,
    stop: vi.fn(() => Promise.resolve()),
  };
}

const SCRIPT = { name: 'Download as Python script' };
const NOTEBOOK = { name: 'Download as notebook' };

describe('ExportRunButtons in the output head', () => {
  let saved: { name: string; href: string }[];
  beforeEach(() => {
    setAccessToken('token-1');
    saved = [];
    URL.createObjectURL = vi.fn(() => 'blob:export');
    URL.revokeObjectURL = vi.fn();
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push({ name: this.download, href: this.href });
    });
  });
  afterEach(() => {
    setAccessToken(null);
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('a completed training offers both downloads; each is fetched with the token and saved under its name', async () => {
    const fetchMock = vi.fn((url: string) =>
      Promise.resolve(
        new Response(url.endsWith('/script') ? 'print(1)\n' : '{"nbformat": 4}', {
          status: 200,
          headers: {
            'content-disposition': `attachment; filename="My_App_output_9.${url.endsWith('/script') ? 'py' : 'ipynb'}"`,
          },
        }),
      ),
    );
    vi.stubGlobal('fetch', fetchMock);
    render(<OutputSummary output={liveOutput()}>{() => null}</OutputSummary>);

    fireEvent.click(screen.getByRole('button', SCRIPT));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(fetchMock).toHaveBeenCalledWith('/api/application-outputs/9/export/script', {
      headers: { authorization: 'Bearer token-1' },
    });
    expect(saved[0]).toEqual({ name: 'My_App_output_9.py', href: 'blob:export' });

    fireEvent.click(screen.getByRole('button', NOTEBOOK));
    await waitFor(() => expect(saved).toHaveLength(2));
    expect(fetchMock).toHaveBeenLastCalledWith('/api/application-outputs/9/export/notebook', {
      headers: { authorization: 'Bearer token-1' },
    });
    expect(saved[1]!.name).toBe('My_App_output_9.ipynb');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("a refusal is shown in the server's words and nothing is saved", async () => {
    const detail = 'Only a completed training output can be exported as code: this output is Failed.';
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.resolve(new Response(JSON.stringify({ success: false, detail }), { status: 409 }))),
    );
    render(<OutputSummary output={liveOutput()}>{() => null}</OutputSummary>);
    fireEvent.click(screen.getByRole('button', SCRIPT));
    expect((await screen.findByRole('alert')).textContent).toBe(`Download failed: ${detail}`);
    expect(saved).toHaveLength(0);
    expect((screen.getByRole('button', SCRIPT) as HTMLButtonElement).disabled).toBe(false);
  });

  it('no downloads for a failed output, a prediction or a result without its run record', () => {
    const cases: Partial<OutputDetail>[] = [
      { status: 'Failed', error: 'Out of memory' },
      { output_data: { result_type: 'Prediction', training_history: null } },
      { run_record: null },
    ];
    for (const over of cases) {
      const { unmount } = render(<OutputSummary output={liveOutput(over)}>{() => null}</OutputSummary>);
      expect(screen.queryByRole('button', SCRIPT)).toBeNull();
      expect(screen.queryByRole('button', NOTEBOOK)).toBeNull();
      unmount();
    }
  });
});
