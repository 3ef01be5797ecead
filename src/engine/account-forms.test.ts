import { describe, expect, it } from 'vitest';
import accountsJson from '../../schemas/accounts.json';
import platformJson from '../../schemas/platform.json';
import {
  accountFormsFrom,
  checkSchemaSources,
  createRegistry,
  isAtLeastYearsOld,
  isIanaTimeZone,
  isNotFutureDate,
  validateAccountForm,
  type AccountFormId,
} from './index';
import { loadSchemaSources } from './node/load-schemas';

// Every rule of the account forms with the spec's message (platform-shell.md section 5), as the
// browser and the server both get it from the engine.

const registry = createRegistry(loadSchemaSources());
const check = (form: AccountFormId, values: unknown) => registry.validateAccountForm(form, values);
const messageOf = (form: AccountFormId, values: unknown, field: string) =>
  check(form, values).find((e) => e.field === field)?.message;

/** `base` with `change` applied; a key changed to undefined is left out (a missing field). */
const withChange = (base: Record<string, unknown>, change: Record<string, unknown>) =>
  Object.fromEntries(Object.entries({ ...base, ...change }).filter(([, v]) => v !== undefined));

const daysAgo = (years: number, days = 0) => {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
};

describe('register form', () => {
  const valid = { name: 'abc', email: 'a@b.co', password: 'bell-state' };
  it.each([
    ['/name', { name: undefined }, 'Username is required'],
    ['/name', { name: '' }, 'Username is required'],
    ['/name', { name: 'ab' }, 'Username must be at least 3 characters'],
    ['/email', { email: undefined }, 'Email is required'],
    ['/email', { email: '' }, 'Email is required'],
    ['/email', { email: 'a@' }, 'Invalid email format'],
    ['/password', { password: undefined }, 'Password is required'],
    ['/password', { password: '' }, 'Password is required'],
    ['/password', { password: '1234567' }, 'Password must be at least 8 characters'],
  ])('%s %j: %s', (field, change, message) => {
    expect(messageOf('register', withChange(valid, change), field)).toBe(message);
  });
  it('accepts the minimum and ignores role_ids', () => {
    expect(check('register', { ...valid, role_ids: [1, 2] })).toEqual([]);
  });
  it("refuses a commonly used password with the checks the server passes; the browser's check passes", () => {
    const isCommonPassword = (password: string) =>
      ['password1', 'bell-state'].includes(password.toLowerCase());
    const common = 'This password is one of the most commonly used; choose one that is harder to guess';
    for (const [form, values, field] of [
      ['register', { ...valid, password: 'Password1' }, '/password'],
      [
        'profile',
        {
          name: 'ok_1',
          dob: '1990-02-03',
          old_password: 'whatever',
          new_password: 'password1',
          confirm_new_password: 'password1',
        },
        '/new_password',
      ],
    ] as const) {
      expect(registry.validateAccountForm(form, values, { isCommonPassword })).toEqual([
        { field, message: common },
      ]);
      expect(check(form, values)).toEqual([]);
    }
    expect(
      registry.validateAccountForm('register', { ...valid, password: 'ghz-circuit' }, { isCommonPassword }),
    ).toEqual([]);
  });
});

describe('login form', () => {
  it.each([
    ['/email', {}, 'Email is required.'],
    ['/email', { email: '' }, 'Email is required.'],
    ['/email', { email: 'nope' }, 'Invalid email format'],
    ['/password', {}, 'Password is required.'],
    ['/password', { password: '' }, 'Password is required.'],
  ])('%s %j: %s', (field, values, message) => {
    expect(messageOf('login', values, field)).toBe(message);
  });
  it('accepts an e-mail and any password', () => {
    expect(check('login', { email: 'a@b.co', password: 'x' })).toEqual([]);
  });
});

describe('profile form', () => {
  const valid = { name: 'ok_1', dob: '1990-02-03' };
  it.each([
    ['/name', { name: undefined }, 'Username is required'],
    ['/name', { name: '' }, 'Username is required'],
    ['/name', { name: 'a' }, 'Username must be at least 2 characters'],
    ['/name', { name: 'x'.repeat(51) }, 'Username must not exceed 50 characters'],
    ['/name', { name: 'no spaces' }, 'Username can only contain letters, numbers, and underscores'],
    ['/dob', { dob: undefined }, 'Date of birth is required'],
    ['/dob', { dob: '' }, 'Date of birth is required'],
    ['/dob', { dob: '1990-13-01' }, 'Date of birth must be a date (YYYY-MM-DD)'],
    ['/dob', { dob: daysAgo(0, -1) }, 'Date of birth cannot be in the future'],
    ['/dob', { dob: daysAgo(13, -1) }, 'You must be at least 13 years old'],
    [
      '/old_password',
      { old_password: '12345', new_password: 'abc123!x', confirm_new_password: 'abc123!x' },
      'Password must be at least 6 characters',
    ],
    [
      '/new_password',
      { old_password: '12345678', new_password: 'a1!', confirm_new_password: 'a1!' },
      'Password must be at least 8 characters',
    ],
    [
      '/confirm_new_password',
      { old_password: '12345678', new_password: 'abc123!x', confirm_new_password: 'abc123!y' },
      'Passwords do not match',
    ],
    [
      '/custom_ibmq_token',
      { custom_ibmq_token: 'a.b' },
      'Token can only contain letters, numbers, hyphens, and underscores',
    ],
    ['/custom_ibmq_token', { custom_ibmq_token: 'a'.repeat(301) }, 'Token must not exceed 300 characters'],
    ['/provided_timezone', { provided_timezone: 'Mars/Base' }, 'Choose a time zone from the list'],
    ['/image_url', { image_url: 'javascript:alert(1)' }, 'Upload the image with the avatar picker'],
  ])('%s %j: %s', (field, change, message) => {
    expect(messageOf('profile', withChange(valid, change), field)).toBe(message);
  });

  it('accepts as the current password any an account may have (6 characters, what registration once took)', () => {
    const change = { old_password: '123456', new_password: 'abc123!x', confirm_new_password: 'abc123!x' };
    expect(check('profile', { ...valid, ...change })).toEqual([]);
    expect(messageOf('profile', { ...valid, ...change, old_password: '12345' }, '/old_password')).toBe(
      'Password must be at least 6 characters',
    );
    // A password being chosen follows one policy, registration's and the new password's alike.
    expect(messageOf('register', { name: 'abc', email: 'a@b.co', password: '1234567' }, '/password')).toBe(
      messageOf('profile', { ...valid, ...change, new_password: '1234567' }, '/new_password'),
    );
  });

  it('wants the three password fields together', () => {
    expect(check('profile', { ...valid, new_password: 'abc123!x' }).map((e) => e.field)).toEqual([
      '/old_password',
      '/confirm_new_password',
    ]);
  });

  it('accepts a full valid profile, 13 today, and null/empty to clear', () => {
    expect(
      check('profile', {
        ...valid,
        dob: daysAgo(13),
        image_url: '/api/images/0123abcd.png',
        custom_ibmq_token: 'A-b_3'.repeat(60),
        provided_timezone: 'America/Argentina/Buenos_Aires',
        old_password: '12345678',
        new_password: 'abc123!x',
        confirm_new_password: 'abc123!x',
      }),
    ).toEqual([]);
    expect(
      check('profile', { ...valid, image_url: null, custom_ibmq_token: '', provided_timezone: null }),
    ).toEqual([]);
  });
});

describe('settings and approval e-mail forms', () => {
  it('settings: the token and time-zone rules, nothing required', () => {
    expect(check('settings', {})).toEqual([]);
    expect(check('settings', { provided_timezone: 'Nowhere', custom_ibmq_token: 'bad token' })).toEqual([
      { field: '/provided_timezone', message: 'Choose a time zone from the list' },
      {
        field: '/custom_ibmq_token',
        message: 'Token can only contain letters, numbers, hyphens, and underscores',
      },
    ]);
  });
  it.each([{}, { email: '' }, { email: 'x@' }])('approval e-mail %j: Invalid email format.', (values) => {
    expect(check('approval-email', values)).toEqual([{ field: '/email', message: 'Invalid email format.' }]);
  });
});

describe('create-application and contact forms', () => {
  const app = { app_name: 'My app', category: 'financial', app_problem_id: 'stock-price-prediction' };
  it.each([
    ['/app_name', { app_name: undefined }, 'This field is required'],
    ['/app_name', { app_name: '' }, 'This field is required'],
    ['/app_name', { app_name: '   ' }, 'This field is required'],
    ['/app_name', { app_name: 'a'.repeat(101) }, 'Application name must not exceed 100 characters'],
    ['/category', { category: '' }, 'This field is required'],
    ['/app_problem_id', { app_problem_id: undefined }, 'This field is required'],
  ])('create-application %s %j: %s', (field, change, message) => {
    expect(messageOf('create-application', withChange(app, change), field)).toBe(message);
  });
  it('create-application: 100 characters are allowed', () => {
    expect(check('create-application', { ...app, app_name: 'a'.repeat(100) })).toEqual([]);
  });
  const contact = { name: 'Dana', email: 'dana@example.com', message: 'Hello' };
  it.each([
    ['/name', { name: '' }, 'This field is required'],
    ['/email', { email: undefined }, 'Email is required'],
    ['/email', { email: 'dana@' }, 'Invalid email format'],
    ['/message', { message: ' \n ' }, 'This field is required'],
    ['/message', { message: 'x'.repeat(5001) }, 'Message must not exceed 5000 characters'],
  ])('contact %s %j: %s', (field, change, message) => {
    expect(messageOf('contact', withChange(contact, change), field)).toBe(message);
  });
  it('contact: a full message of 5000 characters is accepted', () => {
    expect(check('contact', { ...contact, message: 'x'.repeat(5000) })).toEqual([]);
  });
});

describe('the engine keywords', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  it('age: whole years by calendar date (UTC), a 29 February birthday counts from 1 March', () => {
    expect(isAtLeastYearsOld('2013-03-01', 13, now)).toBe(true);
    expect(isAtLeastYearsOld('2013-03-02', 13, now)).toBe(false);
    expect(isAtLeastYearsOld('2012-02-29', 14, now)).toBe(true);
    expect(isAtLeastYearsOld('2012-02-29', 14, new Date('2026-02-28T23:00:00Z'))).toBe(false);
  });
  it('not in the future: today is allowed, tomorrow is not', () => {
    expect(isNotFutureDate('2026-03-01', now)).toBe(true);
    expect(isNotFutureDate('2026-03-02', now)).toBe(false);
  });
  it('time zones: IANA names and their aliases, as spelled; no offsets or other capitals', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'Asia/Calcutta', 'Etc/GMT+5']) {
      expect(isIanaTimeZone(zone), zone).toBe(true);
    }
    for (const zone of ['europe/berlin', '+05:00', 'Mars/Olympus', '', 'Europe/../Berlin']) {
      expect(isIanaTimeZone(zone), zone).toBe(false);
    }
  });
});

describe('loading', () => {
  it('the browser builds the same forms from the two files alone', () => {
    const forms = accountFormsFrom(accountsJson, platformJson);
    expect(validateAccountForm(forms, 'register', { name: 'ab' })).toEqual(check('register', { name: 'ab' }));
  });

  it('schemas:check reports a bad accounts.json by file and pointer', () => {
    const sources = loadSchemaSources();
    const accounts = structuredClone(sources['accounts.json']) as {
      forms: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }>;
    };
    accounts.forms.login!.schema.properties.email!['x-unknown-rule'] = true;
    accounts.forms.register!.schema.properties.name!.errorMessage = { $message: 'noSuchMessage' };
    const issues = checkSchemaSources({ ...sources, 'accounts.json': accounts });
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'accounts.json', pointer: '/forms/login/schema' }),
        expect.objectContaining({
          file: 'accounts.json',
          pointer: '/forms/register/schema/properties/name/errorMessage/$message',
        }),
      ]),
    );
  });

  it('schemas:check refuses a second copy of a shared message in accounts.json', () => {
    const sources = loadSchemaSources();
    const accounts = structuredClone(sources['accounts.json']) as {
      forms: Record<string, { schema: { errorMessage: { required: Record<string, unknown> } } }>;
    };
    accounts.forms.register!.schema.errorMessage.required.name = 'Username is required';
    const issues = checkSchemaSources({ ...sources, 'accounts.json': accounts });
    expect(issues).toEqual([
      expect.objectContaining({
        file: 'accounts.json',
        pointer: '/forms/register/schema/errorMessage/required/name',
        reason: expect.stringContaining('usernameRequired'),
      }),
    ]);
  });
});
