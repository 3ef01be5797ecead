import type { paths } from '../../../generated/api';
import { ApiError, apiFetch } from '../../api/client';
import type { ProblemRoute } from '../../api/outputs';

/**
 * The two issue #12 calls of the Model Configurations tab: the resource estimate of a job body and the
 * IBM devices the account's stored token may use. Wire shapes come from src/generated/api.ts.
 */

type EstimateReply =
  paths[ProblemRoute<'resource-estimate/{userId}'>]['post']['responses'][200]['content']['application/json'];
type DevicesReply = paths['/api/quantum-devices']['get']['responses'][200]['content']['application/json'];

export type ResourceEstimate = EstimateReply['data'];
export type QuantumDevice = DevicesReply['data']['devices'][number];

/** What the estimate call gave: the numbers, or the server's refusal (status and its sentence). */
export type EstimateOutcome =
  { ok: true; estimate: ResourceEstimate } | { ok: false; status: number; detail: string };

/**
 * POST /{problem}/resource-estimate/{userId} with the execute-job body (and the dataset's rows, if known, and
 * the noise model and repeats the form chose: the job extension carries them, not the body).
 */
export async function postResourceEstimate(
  problemId: string,
  userId: number | string,
  params: Record<string, unknown>,
  rows: number | undefined,
  signal: AbortSignal,
  noiseModel?: string,
  repeats?: number,
): Promise<EstimateOutcome> {
  const path = `/${encodeURIComponent(problemId)}/resource-estimate/${encodeURIComponent(String(userId))}`;
  try {
    const reply = await apiFetch<EstimateReply>(path, {
      method: 'POST',
      body: JSON.stringify({
        params,
        ...(rows !== undefined && rows > 0 && { rows }),
        ...(noiseModel && { noise_model: noiseModel }),
        ...(repeats !== undefined && repeats > 1 && { repeats }),
      }),
      signal,
    });
    return { ok: true, estimate: reply.data };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, status: error.status, detail: error.message };
    throw error;
  }
}

/** What the device call gave: the account's devices, or why there are none (no token, rejected, unreachable). */
export type DevicesOutcome = { ok: true; devices: QuantumDevice[] } | { ok: false; detail: string };

/** GET /quantum-devices: 400 without a stored token, 502 when IBM rejects it, 503 when unreachable. */
export async function getQuantumDevices(signal?: AbortSignal): Promise<DevicesOutcome> {
  try {
    const reply = await apiFetch<DevicesReply>('/quantum-devices', signal ? { signal } : {});
    return { ok: true, devices: reply.data.devices };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, detail: error.message };
    if (error instanceof Error && error.name === 'AbortError') throw error;
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}
