// The account forms' rules come from schemas/accounts.json (messages from platform.json) through the
// engine, the same code the server validates request bodies with: one source per rule. Only those two
// files are bundled here, not the whole problem registry.
import accountsJson from '../../../schemas/accounts.json';
import platformJson from '../../../schemas/platform.json';
import { accountFormsFrom, validateAccountForm, type AccountFormId, type AccountForms } from '../../engine';
import type { FieldErrors } from './field-errors';

export type { AccountFormId };

let forms: AccountForms | undefined;

/** The first message per field for these values ({} when valid); keys are the body's field names. */
export function checkAccountForm(form: AccountFormId, values: object): FieldErrors {
  forms ??= accountFormsFrom(accountsJson, platformJson);
  const found: FieldErrors = {};
  for (const { field, message } of validateAccountForm(forms, form, values)) {
    const name = field.replace(/^\//, '').split('/')[0] || 'form';
    found[name] ??= message;
  }
  return found;
}
