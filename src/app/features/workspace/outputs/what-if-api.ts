import { ApiError, apiFetch } from '../../../api/client';

/**
 * The noise what-if calls (issue #12): where a finished output ran and which backends it may be re-run on
 * (GET /application-outputs/{id}/what-if), and the re-run itself (POST, same body, seed and split).
 */

/** 'ideal', a noise model or an IBM device: the request's and the reply's `backend`. */
export type WhatIfBackend = 'ideal' | { noise_model: string } | { device: string };

export interface WhatIfChoices {
  /** Completed and quantum: the server re-runs it. */
  available: boolean;
  backend: WhatIfBackend;
  noise_models: string[];
  devices: string[];
}

export async function getWhatIfChoices(outputId: number, signal?: AbortSignal): Promise<WhatIfChoices> {
  const reply = await apiFetch<{ data: WhatIfChoices }>(
    `/application-outputs/${outputId}/what-if`,
    signal ? { signal } : {},
  );
  return reply.data;
}

export type WhatIfOutcome = { ok: true; outputId: number; name: string } | { ok: false; detail: string };

export async function postWhatIf(outputId: number, backend: WhatIfBackend): Promise<WhatIfOutcome> {
  try {
    const reply = await apiFetch<{ data: { output_id: number; name: string } }>(
      `/application-outputs/${outputId}/what-if`,
      { method: 'POST', body: JSON.stringify({ backend }) },
    );
    return { ok: true, outputId: reply.data.output_id, name: reply.data.name };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, detail: error.message };
    throw error;
  }
}

/** The select's value of a backend, and back: 'ideal', 'noise:fake_kyiv', 'device:ibm_kyiv'. */
export function backendKey(backend: WhatIfBackend): string {
  if (backend === 'ideal') return 'ideal';
  return 'noise_model' in backend ? `noise:${backend.noise_model}` : `device:${backend.device}`;
}

export function backendFromKey(key: string): WhatIfBackend | null {
  if (key === 'ideal') return 'ideal';
  if (key.startsWith('noise:')) return { noise_model: key.slice('noise:'.length) };
  if (key.startsWith('device:')) return { device: key.slice('device:'.length) };
  return null;
}

export interface BackendOption {
  key: string;
  label: string;
}

/**
 * The 'Re-run under…' options: the ideal simulator, each noise model, and each of the problem's devices
 * the account's stored token may use (none when the account's device list has none); where the output ran
 * is left out.
 */
export function backendOptions(choices: WhatIfChoices, accountDevices: readonly string[]): BackendOption[] {
  const usable = new Set(accountDevices);
  const options: BackendOption[] = [
    { key: 'ideal', label: 'Ideal simulator' },
    ...choices.noise_models.map((name) => ({ key: `noise:${name}`, label: `Noise model ${name}` })),
    ...choices.devices
      .filter((name) => usable.has(name))
      .map((name) => ({ key: `device:${name}`, label: `IBM device ${name}` })),
  ];
  const current = backendKey(choices.backend);
  return options.filter((option) => option.key !== current);
}
