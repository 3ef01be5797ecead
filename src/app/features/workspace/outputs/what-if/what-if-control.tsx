import { useEffect, useId, useState } from 'react';
import { useOptionalToast } from '../../../../components/toasts';
import { useOptionalAuth } from '../../../../session/auth-context';
import { getQuantumDevices } from '../../estimate-api';
import {
  backendFromKey,
  backendOptions,
  getWhatIfChoices,
  OPTION_GROUPS,
  postWhatIf,
  type BackendOption,
} from './what-if-api';
import './what-if-control.css';

export const WHAT_IF_LABEL = 'Re-run under…';
export const WHAT_IF_BUTTON = 'Re-run';

/**
 * Noise what-if (issue #12) in the view of a finished quantum output: one click re-runs it under another
 * backend (the ideal simulator, a noise model, a device the account may use) with the same seed and split,
 * as a new output; a toast names it and `onStarted` lets the list show it. The options carry the schema's
 * labels, grouped; one the output's configuration may not use (ADAM on a real device) is shown disabled
 * with the schema's reason. Nothing is drawn for an output the server would not re-run (not Completed,
 * or not quantum).
 */
export function WhatIfControl({
  outputId,
  onStarted,
  hasStoredToken,
}: {
  outputId: number;
  onStarted?: (outputId: number) => void;
  /** Whether the profile stores an IBM token; by default the signed-in user's has_custom_ibmq_token. */
  hasStoredToken?: boolean;
}) {
  const notify = useOptionalToast();
  const auth = useOptionalAuth();
  const tokenStored = hasStoredToken ?? auth?.user?.has_custom_ibmq_token === true;
  const id = useId();
  const [menu, setMenu] = useState<{ options: BackendOption[]; ranOn: string } | null>(null);
  const [chosen, setChosen] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'status' | 'alert'; text: string } | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    (async () => {
      const choices = await getWhatIfChoices(outputId, signal);
      if (!choices.available) return;
      // The account's devices only when the problem offers any and the profile stores a token (the list
      // asks IBM through a worker; without a token the server can only refuse it).
      const devices = choices.devices.length && tokenStored ? await getQuantumDevices(signal) : null;
      const usable = devices?.ok ? devices.devices : [];
      if (!signal.aborted)
        setMenu({ options: backendOptions(choices, usable), ranOn: choices.backend_label });
    })().catch(() => undefined); // no control when the choices cannot be had (or on unmount)
    return () => controller.abort();
  }, [outputId, tokenStored]);

  if (!menu || menu.options.length === 0) return null;
  const { options, ranOn } = menu;
  const reasons = [...new Set(options.flatMap((option) => (option.refused ? [option.refused] : [])))];
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
        {OPTION_GROUPS.map((group) => {
          const inGroup = options.filter((option) => option.group === group);
          return inGroup.length === 0 ? null : (
            <optgroup key={group} label={group}>
              {inGroup.map((option) => (
                <option
                  key={option.key}
                  value={option.key}
                  disabled={!!option.refused}
                  {...(option.refused ? { title: option.refused } : {})}
                >
                  {option.label}
                </option>
              ))}
            </optgroup>
          );
        })}
      </select>
      <button
        type="button"
        className="button secondary"
        onClick={() => void rerun()}
        disabled={busy || chosen === ''}
      >
        {WHAT_IF_BUTTON}
      </button>
      <p className="muted">Ran on {ranOn}.</p>
      {reasons.map((reason) => (
        <p key={reason} className="muted what-if-refused">
          {reason}
        </p>
      ))}
      {message && (
        <p role={message.tone} className={message.tone === 'alert' ? 'form-error' : 'muted'}>
          {message.text}
        </p>
      )}
    </div>
  );
}
