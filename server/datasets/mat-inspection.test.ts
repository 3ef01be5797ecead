// The MatInspector around the worker's mat-inspect (a stand-in launcher answers as the worker's protocol
// does): answers kept per file contents and slice, at most two worker processes at once, the worker's
// reader message shown as 'Error parsing file: {message}' and not kept.

import { describe, expect, it } from 'vitest';
import type { WorkerLauncher, WorkerLaunch } from '../jobs/worker-launcher';
import { DatasetRefusal } from './dataset-refusal';
import { MatInspector } from './mat-inspection';

const answer = (index: number) => ({
  count: 24,
  class_counts: { meningioma: 9, glioma: 9, pituitary: 6 },
  patients: 8,
  image_size: [48, 48],
  format: 'mat-v7.3',
  image_data: [],
  slice: { index: index + 1 },
});

/** A launcher whose calls end when the test says, with a result line or a reader error line. */
function standIn() {
  const calls: { input: { path: string; index: number }; finish: (error?: string) => void }[] = [];
  let running = 0;
  let mostRunning = 0;
  const launcher: WorkerLauncher = {
    kind: 'cold',
    launch(options: WorkerLaunch) {
      running += 1;
      mostRunning = Math.max(mostRunning, running);
      let finish!: (error?: string) => void;
      const done = new Promise<{ code: number; signal: null; stderrTail: string }>((resolve) => {
        finish = (error) => {
          const input = options.input as { index: number };
          const line = error
            ? { type: 'error', kind: 'validation', message: error }
            : { type: 'result', data: answer(input.index) };
          void Promise.resolve(options.onLine?.(JSON.stringify(line))).then(() => {
            running -= 1;
            resolve({ code: error ? 2 : 0, signal: null, stderrTail: '' });
          });
        };
      });
      calls.push({ input: options.input as { path: string; index: number }, finish });
      return { done, pid: 1, kill: () => finish('killed') };
    },
    close: async () => {},
  };
  return { launcher, calls, mostRunning: () => mostRunning };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('MatInspector', () => {
  it('asks the worker once per file contents and slice, whatever the path', async () => {
    const { launcher, calls } = standIn();
    const inspector = new MatInspector({ launcher });
    const first = inspector.inspect({ path: '/tmp/.x.mat.part', sha256: 'aa' }, 2, 30);
    const again = inspector.inspect({ path: '/data/x.mat', sha256: 'aa' }, 2, 30);
    await settle();
    expect(calls.map((c) => c.input)).toEqual([{ path: '/tmp/.x.mat.part', index: 2, rows: 30 }]);
    calls[0]!.finish();
    expect(await first).toEqual(answer(2));
    expect(await again).toBe(await first);
    void inspector.inspect({ path: '/data/x.mat', sha256: 'aa' }, 3, 30);
    await settle();
    expect(calls).toHaveLength(2);
  });

  it('runs at most two worker processes at once; the others wait their turn', async () => {
    const { launcher, calls, mostRunning } = standIn();
    const inspector = new MatInspector({ launcher });
    const all = [0, 1, 2, 3, 4].map((i) => inspector.inspect({ path: '/d.mat', sha256: 'bb' }, i, 30));
    await settle();
    expect(calls).toHaveLength(2);
    for (let done = 0; done < 5; done++) {
      calls[done]!.finish();
      await settle();
    }
    expect((await Promise.all(all)).map((a) => a.slice.index)).toEqual([1, 2, 3, 4, 5]);
    expect(mostRunning()).toBe(2);
  });

  it("refuses with the reader's message after 'Error parsing file: ', and asks again next time", async () => {
    const { launcher, calls } = standIn();
    const inspector = new MatInspector({ launcher });
    const failed = inspector.inspect({ path: '/bad.mat', sha256: 'cc' }, 0, 30);
    await settle();
    calls[0]!.finish('no cjdata struct in the file');
    const refusal = await failed.catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(DatasetRefusal);
    expect((refusal as Error).message).toBe('Error parsing file: no cjdata struct in the file');
    void inspector.inspect({ path: '/bad.mat', sha256: 'cc' }, 0, 30);
    await settle();
    expect(calls).toHaveLength(2);
  });
});
