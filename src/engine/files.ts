// File checks declared as data: the dataset upload (.csv, or .mat for brain tumor training), the
// brain tumor prediction image and the inference CSV. Content checks (DICOM modality, the MRI
// look of a JPEG or PNG) need pixels and stay in the browser; their messages are in the same rule.

import type { FileRule } from './types';

export interface FileCheck {
  ok: boolean;
  /** missing | type | size when not ok. */
  reason?: 'missing' | 'type' | 'size';
  /** The rule's message for the reason (or its `valid` message when ok), if it declares one. */
  message?: string;
}

export function checkFile(
  rule: FileRule,
  file: { name: string; size?: number } | null | undefined,
): FileCheck {
  const messages = rule.messages ?? {};
  const fail = (reason: 'missing' | 'type' | 'size'): FileCheck => ({
    ok: false,
    reason,
    ...(messages[reason] ? { message: messages[reason] } : {}),
  });
  if (!file || !file.name) return fail('missing');
  const name = file.name.toLowerCase();
  if (!rule.extensions.some((ext) => name.endsWith(`.${ext}`))) return fail('type');
  if (rule.maxBytes !== undefined && file.size !== undefined && file.size > rule.maxBytes)
    return fail('size');
  return { ok: true, ...(messages.valid ? { message: messages.valid } : {}) };
}

/** The `accept` attribute of a file input for a rule (".csv", ".nii,.dicom,..."). */
export function acceptAttribute(rule: FileRule): string {
  return rule.extensions.map((ext) => `.${ext}`).join(',');
}
