import { ApiError } from '../api/client';

/** Field name -> the message shown under it ('form' holds the message for the whole form). */
export type FieldErrors = Partial<Record<string, string>>;

/** The first message per field of a 400 reply's `errors` ([{field: '/name', message}]). */
export function fieldErrorsOf(error: unknown): FieldErrors {
  const found: FieldErrors = {};
  if (!(error instanceof ApiError) || !error.body || typeof error.body !== 'object') return found;
  const { errors } = error.body as { errors?: { field?: string; message?: string }[] };
  for (const { field, message } of errors ?? []) {
    const name = (field ?? '').replace(/^\//, '').split('/')[0] || 'form';
    if (message && !found[name]) found[name] = message;
  }
  return found;
}

export const hasErrors = (errors: FieldErrors): boolean => Object.values(errors).some(Boolean);

/**
 * What a refused save shows: field messages under their fields; a refusal without them (a wrong
 * current password, a 404) as one message for the whole form.
 */
export function refusalErrorsOf(error: unknown): FieldErrors {
  const fields = fieldErrorsOf(error);
  return hasErrors(fields) || !(error instanceof ApiError) ? fields : { form: error.message };
}
