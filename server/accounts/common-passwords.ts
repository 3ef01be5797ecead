// The commonly used passwords a new password may not be: @zxcvbn-ts/language-common's list of about
// 49,000 (lower case, ranked from breached-password frequency lists), read once from the installed
// package and checked offline. It stays on the server: the browser's form check passes and shows the
// server's answer (the list is ~380 kB).

import { dictionary } from '@zxcvbn-ts/language-common';
import type { AccountFormChecks } from '../../src/engine';

const COMMON = new Set(dictionary['passwords-common']);

/** Whether `password` is on the list, letter case ignored ('Password1' is 'password1'). */
export const isCommonPassword = (password: string): boolean => COMMON.has(password.toLowerCase());

/** What the account forms check on the server beyond their schemas. */
export const SERVER_FORM_CHECKS: AccountFormChecks = { isCommonPassword };
