import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { RealDeviceChoices } from '../../../renderers';
import { getQuantumDevices, type QuantumDevice } from './estimate-api';

/** The one line under the schema's device list when the account's list cannot be had. */
export const deviceListFallback = (why: string) => `The platform's device list is shown: ${why}`;

/**
 * The account's IBM devices for the device picker, loaded once when the picker first shows its real-device
 * select (GET /quantum-devices). Without a stored token or when IBM does not answer, the picker keeps the
 * schema's list and the note gives the server's reason.
 */
export function useRealDevices(): RealDeviceChoices {
  const [devices, setDevices] = useState<QuantumDevice[] | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const requested = useRef(false);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const load = useCallback(() => {
    if (requested.current) return;
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
  }, []);

  return useMemo(
    () => ({ load, ...(devices ? { devices } : {}), ...(note ? { note } : {}) }),
    [load, devices, note],
  );
}
