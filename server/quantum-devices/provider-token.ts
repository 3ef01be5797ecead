import type { JobEnvelope } from '../jobs/worker-protocol';

/** Looks up a user's stored IBM Quantum token (decrypted), or null. */
export type ProviderTokenLookup = (ownerId: number) => Promise<string | null>;

/**
 * A device run (body `use_quantum_simulator` false) whose body carries no custom token gets the owner's
 * stored token in the envelope's extension (`ibm_token`) as the worker starts: added to the envelope only,
 * never to the job row, its events or a log, so the database keeps just the encrypted copy.
 */
export async function withProviderToken(
  envelope: JobEnvelope,
  ownerId: number,
  lookup: ProviderTokenLookup | undefined,
): Promise<JobEnvelope> {
  const params = envelope.params as Record<string, unknown>;
  const wantsDevice = params.use_quantum_simulator === false;
  if (!lookup || !wantsDevice || params.actual_quantum_device_token || !envelope.extension) return envelope;
  const token = await lookup(ownerId);
  return token ? { ...envelope, extension: { ...envelope.extension, ibm_token: token } } : envelope;
}
