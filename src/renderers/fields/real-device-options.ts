import type { FieldOption } from '../../engine';
import type { RealDeviceChoices, RealDeviceInfo } from '../form-context';

/** The real-device select's options and its one-line note, from the schema's list and the account's. */
export interface RealDeviceSelect {
  options: FieldOption[];
  note?: string;
}

const describe = (d: RealDeviceInfo) =>
  `${d.qubits} qubits, ${d.status}, ${d.pending_jobs} pending job${d.pending_jobs === 1 ? '' : 's'}`;

/**
 * The schema's devices (its enum stays the rule of what a job may name) narrowed to those the account may
 * use, each labelled with its qubits, status and queue. Without the account's list, or when it shares no
 * device with the schema, the schema's list stays and the note says why.
 */
export function realDeviceSelect(
  schemaOptions: readonly FieldOption[],
  choices: RealDeviceChoices | undefined,
): RealDeviceSelect {
  const all = [...schemaOptions];
  if (!choices) return { options: all };
  if (!choices.devices) return choices.note ? { options: all, note: choices.note } : { options: all };
  const byName = new Map(choices.devices.map((d) => [d.name, d]));
  const usable = all.flatMap((o) => {
    const device = byName.get(String(o.value));
    return device ? [{ ...o, label: `${o.label} — ${describe(device)}` }] : [];
  });
  if (usable.length === 0) {
    const names = choices.devices.map((d) => d.name).join(', ') || 'none';
    return {
      options: all,
      note: `Your IBM token may use ${names}; none of them is in this list, so the list is shown as is.`,
    };
  }
  return { options: usable, note: 'Devices your stored IBM token may use, with their current queue.' };
}
