import { useId, useState } from 'react';

/** The masked display never shows more dots than this (spec section 2). */
export const MAX_MASK_DOTS = 40;
export const maskToken = (token: string): string => '•'.repeat(Math.min(token.length, MAX_MASK_DOTS));

interface Props {
  /** The token as the form holds it now. */
  value: string;
  onChange: (token: string) => void;
  /** Whether the account has a stored token (Edit Token) or not (Add Token). */
  stored: boolean;
  editing: boolean;
  onEditingChange: (editing: boolean) => void;
  error?: string;
}

/** The quantum-provider token: its own Edit/Add toggle, Cancel, show/hide and Clear Token. */
export function TokenField({ value, onChange, stored, editing, onEditingChange, error }: Props) {
  const id = useId();
  const [shown, setShown] = useState(false);
  return (
    <div className="token-field">
      <label htmlFor={id}>Quantum provider token</label>
      {editing ? (
        <>
          <div className="token-row">
            <input
              id={id}
              name="custom_ibmq_token"
              type={shown ? 'text' : 'password'}
              autoComplete="off"
              spellCheck={false}
              value={value}
              onChange={(e) => onChange(e.target.value)}
            />
            <button type="button" className="button secondary" onClick={() => setShown((s) => !s)}>
              {shown ? 'Hide' : 'Show'}
            </button>
            <button type="button" className="button secondary" onClick={() => onChange('')}>
              Clear Token
            </button>
            <button type="button" className="button secondary" onClick={() => onEditingChange(false)}>
              Cancel
            </button>
          </div>
          {error && <p className="field-error">{error}</p>}
        </>
      ) : (
        <div className="token-row">
          <span className="token-mask" id={id}>
            {stored ? maskToken(value || '•'.repeat(MAX_MASK_DOTS)) : 'No token stored'}
          </span>
          <button type="button" className="button secondary" onClick={() => onEditingChange(true)}>
            {stored ? 'Edit Token' : 'Add Token'}
          </button>
        </div>
      )}
    </div>
  );
}
