// The account forms (register, login, profile, settings, approval-email, create-application,
// contact): their rules are JSON Schema data in schemas/accounts.json with the spec's messages;
// this module compiles them with the account-form ajv and turns ajv's errors into one message per
// field, so the browser's forms and the server's routes give the same answer for the same values.

import type { ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020';

import { isAtLeastYearsOld, isNotFutureDate } from './account-rules';
import { addCheckKeyword, createFormAjv, type AjvInstance } from './ajv';
import { isPlainObject } from './json';
import { resolveMessages } from './messages';
import { formatPointer, parsePointer } from './pointer';
import { precompiledValidators } from './precompiled';
import type { IssueSink } from './refs';
import { TIME_ZONE_FORMAT, timeZoneFormat } from './validator-runtime';

export const ACCOUNT_FORM_IDS = [
  'register',
  'login',
  'profile',
  'settings',
  'approval-email',
  'create-application',
  'contact',
] as const;
export type AccountFormId = (typeof ACCOUNT_FORM_IDS)[number];

export interface AccountFormDef {
  title: string;
  /** The form's JSON Schema with messages resolved; `$defs` are the file's shared field schemas. */
  schema: Record<string, unknown>;
}

export type AccountForms = Readonly<Record<AccountFormId, AccountFormDef>>;

/** One message per field: `field` is a JSON pointer into the values ("/name"). */
export interface AccountFormError {
  field: string;
  message: string;
}

export const MIN_AGE_KEYWORD = 'x-min-age-years';
export const NOT_FUTURE_KEYWORD = 'x-not-future';
export const NOT_COMMON_PASSWORD_KEYWORD = 'x-not-common-password';
export { TIME_ZONE_FORMAT };

export { isAtLeastYearsOld, isIanaTimeZone, isNotFutureDate } from './account-rules';

/**
 * What the account forms check beyond their schemas' data: whether a password is among the commonly
 * used ones. The list is the server's (hundreds of kilobytes); without one the check passes.
 */
export interface AccountFormChecks {
  isCommonPassword?: (password: string) => boolean;
}

/**
 * The ajv the account forms are compiled with: $data (confirm equals new), ajv-errors, our rules.
 * With STANDALONE_OPTIONS (codegen) the keywords call validator-runtime.ts's versions instead of
 * `now` and `checks`: today's date and no common-password list, as in the browser.
 */
export function createAccountFormAjv(
  now: () => Date = () => new Date(),
  checks: AccountFormChecks = {},
  options: Options = {},
): AjvInstance {
  const ajv = createFormAjv(options);
  addCheckKeyword(
    ajv,
    NOT_COMMON_PASSWORD_KEYWORD,
    'boolean',
    'notCommonPassword',
    (data: string) => !checks.isCommonPassword?.(data),
  );
  ajv.addFormat(TIME_ZONE_FORMAT, timeZoneFormat);
  addCheckKeyword(ajv, NOT_FUTURE_KEYWORD, 'boolean', 'notFuture', (data: string) =>
    isNotFutureDate(data, now()),
  );
  addCheckKeyword(ajv, MIN_AGE_KEYWORD, 'number', 'minAgeYears', (years: number, data: string) =>
    isAtLeastYearsOld(data, years, now()),
  );
  return ajv;
}

/**
 * The JSON pointers of the fields an ajv error is about: a missing key names the key, not its
 * parent (ajv-errors folds every missing key of one keyword into one error; unfold them).
 */
function fieldsOf(error: ErrorObject): string[] {
  const originals =
    error.keyword === 'errorMessage' && Array.isArray(error.params.errors)
      ? (error.params.errors as ErrorObject[])
      : [error];
  const missing = originals
    .filter((e) => e.keyword === 'required' || e.keyword === 'dependentRequired')
    .map((e) => e.params.missingProperty as unknown)
    .filter((name): name is string => typeof name === 'string');
  if (missing.length === 0) return [error.instancePath];
  return missing.map((name) => formatPointer([...parsePointer(error.instancePath), name]));
}

/** ajv's errors as one message per field, the first rule that failed (the order the schema lists them). */
export function toAccountFormErrors(errors: readonly ErrorObject[] | null | undefined): AccountFormError[] {
  const out: AccountFormError[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    for (const field of fieldsOf(error)) {
      if (seen.has(field)) continue;
      seen.add(field);
      out.push({ field, message: error.message ?? 'invalid' });
    }
  }
  return out;
}

/** Compiles every account form; throws when a form's schema does not compile (the registry reports it). */
export function compileAccountForms(
  forms: AccountForms,
  ajv: AjvInstance = createAccountFormAjv(),
): Record<AccountFormId, ValidateFunction> {
  const out: Partial<Record<AccountFormId, ValidateFunction>> = {};
  for (const id of ACCOUNT_FORM_IDS) out[id] = ajv.compile(forms[id].schema);
  return out as Record<AccountFormId, ValidateFunction>;
}

const compiledCache = new WeakMap<AccountForms, Map<AccountFormChecks['isCommonPassword'], Compiled>>();
type Compiled = Record<AccountFormId, ValidateFunction>;

/**
 * Validates a form's values. `[]` means valid; otherwise one {field, message} per field with the
 * spec's message. `forms` is the registry's `accountForms`; `checks` what the server adds (the
 * common-password list).
 */
export function validateAccountForm(
  forms: AccountForms,
  formId: AccountFormId,
  values: unknown,
  checks: AccountFormChecks = {},
): AccountFormError[] {
  const precompiled = checks.isCommonPassword ? undefined : precompiledValidators()?.accountForms;
  if (precompiled) {
    const validate = precompiled[formId];
    return validate(values) ? [] : toAccountFormErrors(validate.errors);
  }
  let byChecks = compiledCache.get(forms);
  if (!byChecks) {
    byChecks = new Map();
    compiledCache.set(forms, byChecks);
  }
  let compiled = byChecks.get(checks.isCommonPassword);
  if (!compiled) {
    compiled = compileAccountForms(forms, createAccountFormAjv(undefined, checks));
    byChecks.set(checks.isCommonPassword, compiled);
  }
  const validate = compiled[formId];
  if (validate(values)) return [];
  return toAccountFormErrors(validate.errors);
}

export function isAccountFormId(id: string): id is AccountFormId {
  return (ACCOUNT_FORM_IDS as readonly string[]).includes(id);
}

const EMPTY_ACCOUNT_FORM: AccountFormDef = { title: '', schema: { type: 'object', properties: {} } };

/**
 * The account forms of accounts.json: messages resolved, the file's $defs handed to each form's
 * schema (so "#/$defs/<name>" resolves), each compiled once here so a rule the engine's ajv
 * refuses is a schema issue rather than a failure at the first request.
 */
export function loadAccountForms(
  file: unknown,
  messages: Readonly<Record<string, string>>,
  onIssue: IssueSink = () => {},
  compileChecks = !precompiledValidators(),
): AccountForms {
  const empty = Object.fromEntries(ACCOUNT_FORM_IDS.map((id) => [id, EMPTY_ACCOUNT_FORM])) as Record<
    AccountFormId,
    AccountFormDef
  >;
  if (!isPlainObject(file) || !isPlainObject(file.forms)) return empty;
  const resolved = resolveMessages(file, messages, onIssue) as {
    $defs?: Record<string, unknown>;
    forms: Record<string, { title: string; schema: Record<string, unknown> }>;
  };
  const forms = { ...empty };
  for (const id of ACCOUNT_FORM_IDS) {
    const form = resolved.forms[id];
    if (!isPlainObject(form) || !isPlainObject(form.schema)) continue;
    const schema = resolved.$defs ? { ...form.schema, $defs: resolved.$defs } : form.schema;
    forms[id] = { title: form.title, schema };
  }
  // Precompiled validators (the browser) were checked when codegen compiled them.
  if (!compileChecks) return forms;
  // One ajv for all of them: each new instance compiles the meta-schemas again (about a quarter of a
  // registry load's time, once per form); a form that does not compile still throws on its own.
  const ajv = createAccountFormAjv();
  for (const id of ACCOUNT_FORM_IDS) {
    try {
      compileAccountForms({ ...empty, [id]: forms[id] }, ajv);
    } catch (err) {
      onIssue(formatPointer(['forms', id, 'schema']), `does not compile: ${(err as Error).message}`);
      forms[id] = EMPTY_ACCOUNT_FORM;
    }
  }
  return forms;
}

/**
 * The account forms from the two parsed files alone (accounts.json and platform.json), for a
 * bundle that needs the forms but not the whole registry (the browser's sign-in and profile pages).
 * Throws when the files are not usable; the registry reports the same issues file by file.
 */
export function accountFormsFrom(accountsJson: unknown, platformJson: unknown): AccountForms {
  const messages =
    isPlainObject(platformJson) && isPlainObject(platformJson.messages)
      ? (platformJson.messages as Record<string, string>)
      : {};
  const issues: string[] = [];
  const forms = loadAccountForms(accountsJson, messages, (pointer, reason) =>
    issues.push(`${pointer}: ${reason}`),
  );
  if (!isPlainObject(accountsJson) || !isPlainObject(accountsJson.forms))
    issues.push('accounts.json has no forms');
  if (issues.length > 0) throw new Error(`Invalid account forms:\n  ${issues.join('\n  ')}`);
  return forms;
}
