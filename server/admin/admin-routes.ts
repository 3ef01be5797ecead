import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { AdminOutcome, AdminService } from './admin-service';
import { ACCOUNT_STATUSES, type AdminUserRecord, type OutboxRecord } from './admin-users-repository';
import {
  acknowledgementWith,
  BODY_ERRORS,
  envelope,
  errorReplies,
  sendRefusal,
} from '../platform/reply-schemas';
import { ACCOUNT_IDENTITY_REQUIRED, accountIdentityProperties } from '../auth/account-schemas';
import { idParams } from '../platform/id-schemas';

const timestamp = { type: 'string', description: 'ISO 8601' } as const;
const optionalTimestamp = { type: ['string', 'null'], description: 'ISO 8601, or null' } as const;

const adminUserSchema = {
  type: 'object',
  required: [
    ...ACCOUNT_IDENTITY_REQUIRED,
    'status',
    'created_at',
    'approved_at',
    'rejected_at',
    'disabled_at',
  ],
  properties: {
    ...accountIdentityProperties,
    status: { type: 'string', enum: ACCOUNT_STATUSES, description: 'The console group the account is in' },
    created_at: timestamp,
    approved_at: optionalTimestamp,
    rejected_at: optionalTimestamp,
    disabled_at: optionalTimestamp,
  },
} as const;

const outboxMailSchema = {
  type: 'object',
  required: ['id', 'recipient', 'subject', 'body', 'kind', 'created_at', 'sent_at'],
  properties: {
    id: { type: 'integer' },
    recipient: { type: 'string' },
    subject: { type: 'string' },
    body: { type: 'string' },
    kind: { type: ['string', 'null'], description: 'verification, approval, rejection (null: older mail)' },
    created_at: timestamp,
    sent_at: optionalTimestamp,
  },
} as const;

const actionReply = acknowledgementWith(adminUserSchema);

const listQuery = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ACCOUNT_STATUSES, description: 'Only this group (omit for all)' },
  },
} as const;

const outboxQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100, description: 'Newest first' },
  },
} as const;

const rolesBody = {
  type: 'object',
  required: ['roles'],
  additionalProperties: false,
  properties: {
    roles: {
      type: 'array',
      maxItems: 20,
      items: { type: 'string', minLength: 1, maxLength: 64 },
      description: 'The complete set of role names the user holds afterwards',
    },
  },
} as const;

const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

const serialiseUser = (user: AdminUserRecord) => ({
  ...user,
  created_at: new Date(user.created_at).toISOString(),
  approved_at: iso(user.approved_at),
  rejected_at: iso(user.rejected_at),
  disabled_at: iso(user.disabled_at),
});

const serialiseMail = (mail: OutboxRecord) => ({
  ...mail,
  created_at: new Date(mail.created_at).toISOString(),
  sent_at: iso(mail.sent_at),
});

type Action = 'approve' | 'reject' | 'verify-email' | 'send-verification' | 'disable' | 'enable';

const ACTIONS: Record<
  Action,
  { summary: string; run: (admin: AdminService, id: number, actorId: number) => Promise<AdminOutcome> }
> = {
  approve: {
    summary: 'Approve a registration: grants the role `user` and e-mails the user',
    run: (a, id) => a.approve(id),
  },
  reject: {
    summary: 'Reject a registration (not your own): ends its sessions and e-mails the user',
    run: (a, id, actorId) => a.reject(id, actorId),
  },
  'verify-email': { summary: "Mark the user's e-mail address verified", run: (a, id) => a.verifyEmail(id) },
  'send-verification': {
    summary: 'Send the user a fresh verification link',
    run: (a, id) => a.sendVerification(id),
  },
  disable: {
    summary: 'Disable the account and end its sessions (not your own)',
    run: (a, id, actorId) => a.disable(id, actorId),
  },
  enable: { summary: 'Enable a disabled account', run: (a, id) => a.enable(id) },
};

/** The admin console's API: accounts by status, decisions on them, roles and the mail outbox. */
export const adminRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { admin: AdminService } }> = async (
  app,
  { admin },
) => {
  app.get(
    '/admin/users',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Accounts, optionally of one status, with the role names an admin can assign',
        querystring: listQuery,
        response: {
          200: envelope({
            type: 'object',
            required: ['users', 'roles'],
            properties: {
              users: { type: 'array', items: adminUserSchema },
              roles: { type: 'array', items: { type: 'string' } },
            },
          }),
          ...errorReplies(400, 401, 403),
        },
      },
    },
    async (request) => {
      const [users, roles] = await Promise.all([admin.list(request.query.status), admin.knownRoles()]);
      return { success: true, data: { users: users.map(serialiseUser), roles } };
    },
  );

  for (const [action, { summary, run }] of Object.entries(ACTIONS)) {
    app.post(
      `/admin/users/:id/${action}`,
      {
        onRequest: app.requireAdmin,
        schema: {
          tags: ['admin'],
          summary,
          params: idParams,
          response: { 200: actionReply, ...errorReplies(...BODY_ERRORS, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const outcome = await run(admin, request.params.id, request.currentUser!.id);
        if (!outcome.ok) return sendRefusal(reply, outcome);
        return { success: true, message: outcome.message, data: serialiseUser(outcome.user) };
      },
    );
  }

  app.put(
    '/admin/users/:id/roles',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: "Replace the user's roles (the last admin keeps the role admin)",
        params: idParams,
        body: rolesBody,
        response: { 200: actionReply, ...errorReplies(...BODY_ERRORS, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const outcome = await admin.setRoles(request.params.id, request.body.roles);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return { success: true, message: outcome.message, data: serialiseUser(outcome.user) };
    },
  );

  app.get(
    '/admin/outbox',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        summary: 'Mail the embedded default kept instead of sending (empty when SMTP_URL is set)',
        querystring: outboxQuery,
        response: {
          200: envelope({
            type: 'object',
            required: ['mode', 'messages'],
            properties: {
              mode: { type: 'string', enum: ['outbox', 'smtp'], description: 'smtp: mail is sent, not kept' },
              messages: { type: 'array', items: outboxMailSchema },
            },
          }),
          ...errorReplies(400, 401, 403),
        },
      },
    },
    async (request) => {
      const messages = await admin.outbox(request.query.limit);
      return { success: true, data: { mode: admin.mailMode, messages: messages.map(serialiseMail) } };
    },
  );
};
