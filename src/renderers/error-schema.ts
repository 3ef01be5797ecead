// The engine's errors (JSON pointers into app_data, spec messages word for word, `required`
// messages already moved from the parent object to the missing field) as rjsf's ErrorSchema for
// one section, so that rjsf hands each field its own message (`rawErrors`).

import type { ErrorSchema } from '@rjsf/utils';

import type { FieldError, FieldView } from '../engine';

/**
 * One entry per field with a problem: its first (most basic) message. A field with sub-fields
 * (splitter, device picker) gets only the messages about itself here; it draws the messages of
 * its sub-fields next to them. Other fields (a column list with a bad item) get the first
 * message about themselves or anything below them.
 */
export function toErrorSchema(
  errors: readonly FieldError[],
  fields: readonly FieldView[],
): ErrorSchema | undefined {
  const out: Record<string, { __errors: string[] }> = {};
  for (const field of fields) {
    const own = errors.find((e) => e.path === field.path);
    const below = field.subfields ? undefined : errors.find((e) => e.path.startsWith(field.path + '/'));
    const message = (own ?? below)?.message;
    if (message !== undefined) out[field.name] = { __errors: [message] };
  }
  return Object.keys(out).length > 0 ? (out as ErrorSchema) : undefined;
}
