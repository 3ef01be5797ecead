/**
 * The fields every reply about an account carries (the current user, the admin console's rows),
 * declared once so the two stay the same shape.
 */
export const ACCOUNT_IDENTITY_REQUIRED = [
  'id',
  'name',
  'email',
  'email_verified',
  'is_approved',
  'roles',
] as const;

export const accountIdentityProperties = {
  id: { type: 'integer' },
  name: { type: 'string' },
  email: { type: 'string' },
  email_verified: { type: 'boolean' },
  is_approved: { type: 'boolean' },
  roles: { type: 'array', items: { type: 'string' } },
} as const;

/** The same fields as a TypeScript type, for the records the replies are built from. */
export interface AccountIdentity {
  id: number;
  name: string;
  email: string;
  email_verified: boolean;
  is_approved: boolean;
  roles: string[];
}
