import { useEffect, useId, useState } from 'react';
import { useOptionalToast } from '../../../components/toasts';
import { getQuantumDevices } from '../estimate-api';
import {
  backendFromKey,
  backendOptions,
  getWhatIfChoices,
  postWhatIf,
  type BackendOption,
} from './what-if-api';
import './what-if-control.css';

export const WHAT_IF_LABEL = 'Re-run under…';
export const WHAT_IF_BUTTON = 'Re-run';

/**
 * Noise what-if (issue #12) in the view of a finished quantum output: one click re-runs it under another
 * backend (the ideal simulator, a noise model, a device the account may use) with the same seed and split,
 * as a new output; a toast names it and `onStarted` lets the list show it. Nothing is drawn for an output
 * the server would not re-run (not Completed, or not quantum).
 */
export function WhatIfControl({
  outputId,
  onStarted,
}: {
  outputId: number;
  onStarted?: (outputId: number) => void;
}) {
  const notify = useOptionalToast();
  const id = useId();
  const [options, setOptions] = useState<BackendOption[] | null>(null);
  const [chosen, setChosen] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'status' | 'alert'; text: string } | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    (async () => {
      const choices = await getWhatIfChoices(outputId, signal);
      if (!choices.available) return;
      // The account's devices only when the problem offers any (the list asks IBM through a worker).
      const devices = choices.devices.length ? await getQuantumDevices(signal) : null;
      const usable = devices?.ok ? devices.devices.map((d) => d.name) : [];
      if (!signal.aborted) setOptions(backendOptions(choices, usable));
    })().catch(() => undefined); // no control when the choices cannot be had (or on unmount)
    return () => controller.abort();
  }, [outputId]);

  if (!options || options.length === 0) return null;
  const rerun = async () => {
    const backend = backendFromKey(chosen);
    if (!backend) return;
    setBusy(true);
    setMessage(null);
    try {
      const outcome = await postWhatIf(outputId, backend);
      if (outcome.ok) {
        const text = `Re-run started as output ${outcome.outputId}: ${outcome.name}`;
        setMessage({ tone: 'status', text });
        notify?.('success', text);
        onStarted?.(outcome.outputId);
      } else {
        setMessage({ tone: 'alert', text: outcome.detail });
        notify?.('error', outcome.detail);
      }
    } catch (error) {
      setMessage({ tone: 'alert', text: error instanceof Error ? error.message : String(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="what-if" data-testid="what-if">
      <label htmlFor={id}>{WHAT_IF_LABEL}</label>
      <select id={id} value={chosen} onChange={(event) => setChosen(event.target.value)} disabled={busy}>
        <option value="">Choose a backend</option>
        {options.map((option) => (
          <option key={option.key} value={option.key}>
            {option.label}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="button secondary"
        onClick={() => void rerun()}
        disabled={busy || chosen === ''}
      >
        {WHAT_IF_BUTTON}
      </button>
      {message && (
        <p role={message.tone} className={message.tone === 'alert' ? 'form-error' : 'muted'}>
          {message.text}
        </p>
      )}
    </div>
  );
}
