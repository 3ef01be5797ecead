import { ApiError, apiFetch } from '../../../../api/client';

/**
 * The noise what-if calls (issue #12): where a finished output ran and which backends it may be re-run on
 * (GET /application-outputs/{id}/what-if), and the re-run itself (POST, same body, seed and split).
 */

/** 'ideal', a noise model or an IBM device: the request's and the reply's `backend`. */
export type WhatIfBackend = 'ideal' | { noise_model: string } | { device: string };

/** A backend of the menu: its name, the schema's label, and the schema's reason when the re-run may not use it. */
export interface WhatIfChoice {
  name: string;
  label: string;
  refused?: string;
}

export interface WhatIfChoices {
  /** Completed and quantum: the server re-runs it. */
  available: boolean;
  backend: WhatIfBackend;
  /** Where it ran, labelled. */
  backend_label: string;
  noise_models: WhatIfChoice[];
  devices: WhatIfChoice[];
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

/** The account's devices as the device list reports them (name, qubits, queue). */
export interface AccountDevice {
  name: string;
  qubits: number;
  pending_jobs: number;
}

export const IDEAL_OPTION_LABEL = 'Ideal simulator';
export const OPTION_GROUPS = ['Simulator', 'Noise models', 'IBM devices'] as const;

export interface BackendOption {
  key: string;
  /** The schema's label (a device's with its qubits and queue). */
  label: string;
  group: (typeof OPTION_GROUPS)[number];
  /** The schema's reason the re-run may not use it: shown, not choosable. */
  refused?: string;
}

const pending = (jobs: number) => `${jobs} pending job${jobs === 1 ? '' : 's'}`;

/**
 * The 'Re-run under…' options: the ideal simulator, each noise model, and each of the problem's devices
 * the account's stored token may use (none when the account's device list has none), labelled as the
 * schema labels them; where the output ran is left out.
 */
export function backendOptions(
  choices: WhatIfChoices,
  accountDevices: readonly AccountDevice[],
): BackendOption[] {
  const usable = new Map(accountDevices.map((device) => [device.name, device]));
  const refused = (choice: WhatIfChoice) => (choice.refused ? { refused: choice.refused } : {});
  const options: BackendOption[] = [
    { key: 'ideal', label: IDEAL_OPTION_LABEL, group: 'Simulator' },
    ...choices.noise_models.map((choice) => ({
      key: `noise:${choice.name}`,
      label: choice.label,
      group: 'Noise models' as const,
      ...refused(choice),
    })),
    ...choices.devices.flatMap((choice) => {
      const device = usable.get(choice.name);
      if (!device) return [];
      const label = `${choice.label} (${device.qubits} qubits, ${pending(device.pending_jobs)})`;
      return [{ key: `device:${choice.name}`, label, group: 'IBM devices' as const, ...refused(choice) }];
    }),
  ];
  const current = backendKey(choices.backend);
  return options.filter((option) => option.key !== current);
}
