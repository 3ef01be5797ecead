// @vitest-environment jsdom
// The Predict Brain Tumor sub-tab as a user meets it: the six labelled examples, the image refusals of spec
// section 5 in its words (type, size, not an MRI, webcam), the pasted URL, the model choice, the prediction
// request (multipart file or image_url), its result and the move to Outputs. Only fetch, the image decoder
// and the camera are stand-ins; the MRI rule is the engine's, on generated pixels.

import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { browserRegistry } from '../../../../renderers/browser-registry';
import { setAccessToken } from '../../../api/client';
import { cleanBrowserAfterEach } from '../../../test-support/page-test';
import type { WorkspaceUser } from '../workspace-types';
import { predictPath } from './predict-api';
import { IMAGE_PROCESSING_FAILED, type Pixels } from './image-validation';
import { mriLookOf } from './mri-look';
import { NOT_A_URL, PredictPanel } from './predict-panel';
import { WEBCAM_FAILED } from './webcam-capture';

cleanBrowserAfterEach();
const brain = browserRegistry().getProblem('brain-tumor');
const messages = brain.predict!.image!.messages!;
const user: WorkspaceUser = { id: 7, name: 'ada', email: 'ada@example.com' };

/** Pixels shaped like the browser's ImageData: width, height and data are prototype getters, not own fields. */
class ImageDataLike implements Pixels {
  readonly #width: number;
  readonly #height: number;
  readonly #data: Uint8ClampedArray;
  constructor(data: Uint8ClampedArray, width: number, height: number) {
    this.#data = data;
    this.#width = width;
    this.#height = height;
  }
  get width() {
    return this.#width;
  }
  get height() {
    return this.#height;
  }
  get data() {
    return this.#data;
  }
}

/** 64x64 RGBA: a gray bright disc on black (MRI-like), or the same in saturated colours (a photo). */
function pixels(kind: 'mri' | 'colour'): Pixels {
  const size = 64;
  const data = new Uint8ClampedArray(size * size * 4);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const at = (y * size + x) * 4;
      const inside = (x - 32) ** 2 + (y - 32) ** 2 < 22 ** 2;
      const v = inside ? 170 : 5;
      data.set(kind === 'mri' ? [v, v, v, 255] : [inside ? 250 : 10, inside ? 40 : 200, 30, 255], at);
    }
  return new ImageDataLike(data, size, size);
}

let nextPixels: Pixels | null;
let predictReply: { status: number; body: unknown };
let fetchMock: ReturnType<typeof vi.fn>;
const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
beforeEach(() => {
  setAccessToken('token-1');
  nextPixels = pixels('mri');
  predictReply = {
    status: 200,
    body: {
      success: true,
      prediction: 'glioma',
      probabilities: { meningioma: 0.1, glioma: 0.8, pituitary: 0.1 },
      message: 'Predicted with densenet121 (output 12).',
      output_id: 31,
      model: { output_id: 12, model_name: 'densenet121' },
    },
  };
  fetchMock = vi.fn((input: RequestInfo | URL) => {
    const url = new URL(String(input), 'http://localhost');
    if (url.pathname.startsWith('/api/download/'))
      return Promise.resolve(
        new Response(PNG_BYTES, { status: 200, headers: { 'content-type': 'image/png' } }),
      );
    if (url.pathname.startsWith('/api/brain-tumor-classification/predict/'))
      return Promise.resolve(
        new Response(JSON.stringify(predictReply.body), { status: predictReply.status }),
      );
    return Promise.resolve(new Response('{}', { status: 404 }));
  });
  vi.stubGlobal('fetch', fetchMock);
  vi.stubGlobal(
    'URL',
    Object.assign(URL, { createObjectURL: () => 'blob:x', revokeObjectURL: () => undefined }),
  );
});
afterEach(() => setAccessToken(null));

function open(onPredicted = vi.fn(), who: WorkspaceUser | null = user) {
  render(
    <MemoryRouter>
      <PredictPanel
        problem={brain}
        user={who}
        applicationId={5}
        onPredicted={onPredicted}
        readPixels={() => (nextPixels ? Promise.resolve(nextPixels) : Promise.reject(new Error('not a PNG')))}
        looksLikeMri={mriLookOf(brain)}
      />
    </MemoryRouter>,
  );
  return onPredicted;
}
const upload = (file: File) =>
  fireEvent.change(screen.getByLabelText('Upload MRI image'), { target: { files: [file] } });
const png = (name = 'scan.png', bytes = 100) =>
  new File([new Uint8Array(bytes)], name, { type: 'image/png' });
const predictCalls = () =>
  fetchMock.mock.calls.filter(([u]) => String(u).startsWith('/api/brain-tumor-classification/predict/'));

describe('Predict Brain Tumor', () => {
  it('offers six labelled synthetic examples with thumbnails from the samples download route', async () => {
    open();
    const names = screen
      .getAllByRole('button', { name: /^Example \d: / })
      .map((b) => b.getAttribute('aria-label'));
    expect(names).toEqual([
      'Example 1: meningioma (synthetic)',
      'Example 2: meningioma (synthetic)',
      'Example 3: glioma (synthetic)',
      'Example 4: glioma (synthetic)',
      'Example 5: pituitary (synthetic)',
      'Example 6: pituitary (synthetic)',
    ]);
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(6));
    expect(String(fetchMock.mock.calls[0]![0])).toBe(
      `/api/download/${encodeURIComponent('mri-examples/meningioma-1.png')}/7/ada%40example.com`,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Example 3: glioma (synthetic)' }));
    expect((await screen.findByRole('note')).textContent).toBe(messages.valid);
  });

  it('refuses a wrong type, a file over 5 MB and a colour photo, in the spec words', async () => {
    open();
    upload(new File(['x'], 'notes.txt'));
    expect((await screen.findByRole('alert')).textContent).toBe(messages.type);
    upload(png('big.png', 5 * 1024 * 1024 + 1));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(messages.size));
    nextPixels = pixels('colour');
    upload(png('holiday.png'));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(messages.notMri));
    // A refused image is not sent.
    fireEvent.click(screen.getByRole('button', { name: 'Predict Now' }));
    expect(predictCalls()).toHaveLength(0);
  });

  it('says so when a .png cannot be decoded', async () => {
    open();
    nextPixels = null;
    upload(png('renamed-text.png'));
    expect((await screen.findByRole('alert')).textContent).toBe(IMAGE_PROCESSING_FAILED);
  });

  it('asks for an image before predicting', () => {
    open();
    fireEvent.click(screen.getByRole('button', { name: 'Predict Now' }));
    expect(screen.getByRole('alert').textContent).toBe('Please select an image before proceeding!');
    expect(predictCalls()).toHaveLength(0);
  });

  it('posts the file as multipart with the chosen model and shows the class, its probabilities and the link to the output at once', async () => {
    const onPredicted = open();
    upload(png());
    expect((await screen.findByRole('note')).textContent).toBe('File is valid and ready for prediction!');
    const models = screen.getByRole('radiogroup', { name: 'Model' });
    expect(
      within(models)
        .getAllByRole('radio')
        .map((r) => (r as HTMLInputElement).value),
    ).toEqual(['densenet121', 'qmodel']);
    expect(models.textContent).toContain("Uses this application's latest completed classical training.");
    fireEvent.click(within(models).getByRole('radio', { name: 'qmodel' }));
    expect(models.textContent).toContain("Uses this application's latest completed quantum training.");
    fireEvent.click(screen.getByRole('button', { name: 'Predict Now' }));
    const status = await screen.findByRole('status');
    expect(status.textContent).toContain('Prediction: glioma');
    expect(status.textContent).toContain('80.0 %');
    expect(status.textContent).toContain('Predicted with densenet121 (output 12).');
    const [url, init] = predictCalls()[0]!;
    expect(String(url)).toBe('/api/brain-tumor-classification/predict/7?application_id=5&model_name=qmodel');
    expect((init as RequestInit).method).toBe('POST');
    const body = (init as RequestInit).body as FormData;
    expect((body.get('file') as File).name).toBe('scan.png');
    expect(new Headers((init as RequestInit).headers).get('authorization')).toBe('Bearer token-1');
    expect(onPredicted).toHaveBeenCalledWith(
      expect.objectContaining({ prediction: 'glioma', output_id: 31 }),
    );
    // Every class's probability, and the output that records this prediction one click away.
    const bars = within(status).getByRole('list', { name: 'Probabilities' });
    expect(
      within(bars)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['meningioma10.0 %', 'glioma80.0 %', 'pituitary10.0 %']);
    expect(
      within(status).getByRole('link', { name: "Open this prediction's output (#31)" }).getAttribute('href'),
    ).toBe('/applications/5/outputs/31');
  });

  it('sends a pasted http link as image_url and refuses pasted text that is not one', async () => {
    open();
    const box = screen.getByRole('textbox', { name: 'Image URL' });
    fireEvent.paste(box, { clipboardData: { getData: () => 'just words' } });
    expect(screen.getByRole('alert').textContent).toBe(NOT_A_URL);
    fireEvent.paste(box, { clipboardData: { getData: () => ' https://example.org/scan.png ' } });
    expect((box as HTMLInputElement).value).toBe('https://example.org/scan.png');
    fireEvent.click(screen.getByRole('button', { name: 'Predict Now' }));
    await screen.findByRole('status');
    const [url, init] = predictCalls()[0]!;
    expect(String(url)).toContain('model_name=densenet121');
    expect(JSON.parse((init as RequestInit).body as string)).toEqual({
      image_url: 'https://example.org/scan.png',
    });
    expect(new Headers((init as RequestInit).headers).get('content-type')).toBe('application/json');
  });

  it('sends a typed link too', async () => {
    open();
    fireEvent.change(screen.getByRole('textbox', { name: 'Image URL' }), {
      target: { value: 'http://example.org/a.png' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Predict Now' }));
    await screen.findByRole('status');
    expect(JSON.parse((predictCalls()[0]![1] as RequestInit).body as string)).toEqual({
      image_url: 'http://example.org/a.png',
    });
  });

  it("shows the server's refusal in the spec's HTTP error wording", async () => {
    predictReply = {
      status: 409,
      body: {
        success: false,
        detail: 'No trained classical model for this application yet. Train one first.',
      },
    };
    open();
    upload(png());
    await screen.findByRole('note');
    fireEvent.click(screen.getByRole('button', { name: 'Predict Now' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'HTTP error! status: 409, details: No trained classical model for this application yet. Train one first.',
    );
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('says when no user is signed in', async () => {
    open(vi.fn(), null);
    upload(png());
    await screen.findByRole('note');
    fireEvent.click(screen.getByRole('button', { name: 'Predict Now' }));
    expect(screen.getByRole('alert').textContent).toBe('User is not logged in!');
    expect(predictCalls()).toHaveLength(0);
  });

  it("reports a camera that cannot be opened with the spec's webcam message", async () => {
    vi.stubGlobal('navigator', {
      ...navigator,
      mediaDevices: { getUserMedia: () => Promise.reject(new Error('NotAllowedError')) },
    });
    open();
    fireEvent.click(screen.getByRole('button', { name: 'Use webcam' }));
    expect((await screen.findByRole('alert')).textContent).toBe(WEBCAM_FAILED);
  });
});

describe('the predict path', () => {
  it("comes from the problem file's job path, as the server builds its predict route", () => {
    expect(predictPath(brain, 7)).toBe('/api/brain-tumor-classification/predict/7');
    // Another problem with a predict block (the server's predict-problems test copies brain tumor so).
    const renamed = {
      ...brain,
      id: 'skin-lesion',
      job: {
        ...brain.job,
        request: { ...brain.job.request, path: '/skin-lesion-classification/execute-job/{modelType}' },
      },
    };
    expect(predictPath(renamed, 3)).toBe('/api/skin-lesion-classification/predict/3');
  });
});
