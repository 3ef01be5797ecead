import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { RealDeviceChoices } from '../../../renderers';
import { getQuantumDevices, type QuantumDevice } from './estimate-api';

/** The one line under the schema's device list when the account's list cannot be had. */
export const deviceListFallback = (why: string) => `The platform's device list is shown: ${why}`;

/** Why there is no account list when the profile has no stored IBM token (GET /quantum-devices is not asked). */
export const NO_STORED_TOKEN_NOTE = 'your profile has no stored IBM Quantum token.';

/**
 * The account's IBM devices for the device picker, loaded once when the picker first shows its real-device
 * select (GET /quantum-devices). Without a stored token (`hasStoredToken`, the profile's
 * has_custom_ibmq_token) the list is not asked, since the server can only refuse it; then, or when IBM does
 * not answer, the picker keeps the schema's list and the note says why.
 */
export function useRealDevices(hasStoredToken: boolean): RealDeviceChoices {
  const [devices, setDevices] = useState<QuantumDevice[] | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const requested = useRef(false);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const load = useCallback(() => {
    if (requested.current) return;
    if (!hasStoredToken) {
      setNote(deviceListFallback(NO_STORED_TOKEN_NOTE));
      return;
    }
    requested.current = true;
    controller.current = new AbortController();
    const { signal } = controller.current;
    getQuantumDevices(signal)
      .then((outcome) => {
        if (signal.aborted) return;
        if (outcome.ok) setDevices(outcome.devices);
        else setNote(deviceListFallback(outcome.detail));
      })
      .catch(() => undefined); // aborted on unmount
  }, [hasStoredToken]);

  // A token stored later (the profile's edit refreshes the user) clears the note so the list is asked.
  useEffect(() => {
    if (hasStoredToken) setNote((current) => (requested.current ? current : null));
  }, [hasStoredToken]);

  return useMemo(
    () => ({ load, ...(devices ? { devices } : {}), ...(note ? { note } : {}) }),
    [load, devices, note],
  );
}
