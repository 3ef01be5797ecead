// @vitest-environment jsdom
// The run hook's `running` flag (the workspace's banner and every Run button) follows the started output's
// status as the page reads it: a run that completes before the hook's own poll clears the flag the moment
// the output's detail, an outputs list or the live stream shows it final.

import { act, renderHook } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createExampleAppData, mapJobRequest } from '../../engine';
import { browserRegistry } from '../../renderers/browser-registry';
import { fakeApi } from '../test-support/fake-api';
import { cleanBrowserAfterEach, storeToken } from '../test-support/page-test';
import { listOutputs } from './applications';
import { followOutput, getOutputDetail } from './outputs';
import { useRunApplication } from './use-run-application';

beforeEach(storeToken);
cleanBrowserAfterEach();

const fraud = browserRegistry().getProblem('fraud-detection');
const app = { id: 5, app_problem_id: fraud.id, app_data: createExampleAppData(fraud).appData };
const { path } = mapJobRequest(fraud, app.app_data, { applicationId: 5, userId: 7 });

let nextId = 300;
/** Renders the hook against a fake API whose new output is already `status` when read. */
function startedRun(status: string) {
  const outputId = nextId++;
  fakeApi({
    [`POST /api${path}`]: () => ({ status: 201, body: { success: true, data: { output_id: outputId } } }),
    [`GET /api/application-outputs/${outputId}/detail`]: () => ({
      body: { success: true, data: { id: outputId, status } },
    }),
    'GET /api/application-outputs/5/all': () => ({
      body: { success: true, data: [{ id: outputId, name: 'Fraud #1', status, application_id: 5 }] },
    }),
  });
  const hook = renderHook(() => useRunApplication(app, 7, () => undefined));
  return { outputId, hook };
}

describe('useRunApplication: running until the started output is final', () => {
  beforeEach(() => {
    // The hook's own poll never fires here: only the page's reads can end the wait.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    return () => vi.useRealTimers();
  });

  it('ends when the output detail the page reads is Completed, before the next poll', async () => {
    const { outputId, hook } = startedRun('Completed');
    await act(() => hook.result.current.run());
    expect(hook.result.current.running).toBe(true);
    await act(async () => {
      await getOutputDetail(outputId);
    });
    expect(hook.result.current.running).toBe(false);
  });

  it('ends when an outputs list shows the output Failed', async () => {
    const { hook } = startedRun('Failed');
    await act(() => hook.result.current.run());
    expect(hook.result.current.running).toBe(true);
    await act(async () => {
      await listOutputs(5);
    });
    expect(hook.result.current.running).toBe(false);
  });

  it("ends on the live stream's final status event", async () => {
    const { outputId, hook } = startedRun('Running');
    await act(() => hook.result.current.run());
    const events = [
      { type: 'status', payload: { status: 'Running' } },
      { type: 'status', payload: { status: 'Completed' } },
    ];
    const fetchJson = globalThis.fetch;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
      String(input).endsWith(`/application-outputs/${outputId}/stream`)
        ? Promise.resolve(new Response(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')))
        : fetchJson(input, init),
    );
    const seen: string[] = [];
    await act(() =>
      followOutput(
        outputId,
        (event) => seen.push(String((event.payload as { status: string }).status)),
        new AbortController().signal,
      ),
    );
    expect(seen).toEqual(['Running', 'Completed']);
    expect(hook.result.current.running).toBe(false);
  });

  it("stays on while the output is Ongoing and ignores another output's final status", async () => {
    const { outputId, hook } = startedRun('Running');
    await act(() => hook.result.current.run());
    await act(async () => {
      await getOutputDetail(outputId);
      await listOutputs(5);
    });
    expect(hook.result.current.running).toBe(true);
    // An older output of the same application finishing is not this run.
    const other = startedRun('Completed');
    await act(async () => {
      await getOutputDetail(other.outputId);
    });
    expect(hook.result.current.running).toBe(true);
  });
});
