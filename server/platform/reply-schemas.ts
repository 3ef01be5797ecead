// The reply shapes every route shares. A route's `response` lists one schema per status it can
// answer, so the schema is both its TypeScript type (type provider) and its OpenAPI entry; the
// conformance test (server/platform/openapi-conformance.test.ts) checks the list against real replies.

import type { FastifyReply } from 'fastify';

/** The reply envelope every successful API call uses: `{ success: true, data }`. */
export const envelope = <Data extends object>(data: Data) =>
  ({
    type: 'object',
    required: ['success', 'data'],
    properties: { success: { type: 'boolean' }, data },
  }) as const;

/** Value shapes reply schemas share. */
export const anyObject = { type: 'object', additionalProperties: true } as const;
export const nullableObject = { type: ['object', 'null'], additionalProperties: true } as const;
export const numberMap = { type: 'object', additionalProperties: { type: 'number' } } as const;
export const nullableNumber = { type: ['number', 'null'] } as const;
export const isoOrNull = { type: ['string', 'null'], format: 'date-time' } as const;
export const stringList = { type: 'array', items: { type: 'string' } } as const;

/** `{ success: true, message }`: an accepted action with nothing to return. */
export const acknowledgement = {
  type: 'object',
  required: ['success', 'message'],
  properties: { success: { type: 'boolean' }, message: { type: 'string' } },
} as const;

/** `{ success: true, message, data }`: an accepted action with what it made or changed. */
export const acknowledgementWith = <Data extends object>(data: Data) =>
  ({
    type: 'object',
    required: ['success', 'message', 'data'],
    properties: { success: { type: 'boolean' }, message: { type: 'string' }, data },
  }) as const;

export const fieldErrorSchema = {
  type: 'object',
  required: ['field', 'message'],
  properties: {
    field: {
      type: 'string',
      description:
        "JSON pointer (RFC 6901) into the request part that was refused; where `path` is given, the field's name",
    },
    message: { type: 'string' },
    path: { type: 'string', description: 'JSON pointer into the stored app_data or the body (execute-job)' },
    label: { type: 'string', description: 'The form label of the field (execute-job)' },
  },
} as const;

/**
 * The one error envelope: `detail` is the text the client shows; `errors` names each refused field
 * by JSON pointer; `message` is the spec's sentence on routes whose refusals the spec words ('Failed to
 * execute the application! {detail}', 'Error uploading file. {detail}'). Every error reply of the API
 * uses this schema (error handler, not-found, auth, throttle, the routes' own refusals), so any refusal
 * serialises under any route's error status; only `success` and `detail` are required.
 */
export const errorReply = {
  type: 'object',
  required: ['success', 'detail'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    detail: { type: 'string', description: 'The message the client shows' },
    message: { type: 'string', description: "The spec's sentence for this refusal, where it has one" },
    errors: { type: 'array', items: fieldErrorSchema },
  },
} as const;

/** What each error status means, for the OpenAPI document. */
const ERROR_MEANINGS = {
  400: 'The request is malformed; `errors` names each refused field by JSON pointer',
  401: 'No valid bearer token (see the WWW-Authenticate header)',
  403: 'The signed-in user may not do this',
  404: 'No such resource, or not visible to the signed-in user',
  409: 'The request conflicts with the current state (e.g. an e-mail address already taken, the last admin)',
  413: 'The body is larger than the server accepts',
  414: 'The address (a path segment) is too long',
  415: 'The body has a content type the route does not accept',
  429: 'Too many attempts; wait as long as the Retry-After header says',
  431: 'The request headers are too large (answered by the HTTP server itself, without a body)',
  502: 'A worker process could not answer (it failed or ran out of time); `detail` says why',
  503: 'A service the answer depends on (e.g. IBM Quantum) cannot be reached now; `detail` says why',
} as const;

export type ErrorStatus = keyof typeof ERROR_MEANINGS;

/** Response schemas for the error statuses a route can answer, each with the error envelope. */
export function errorReplies<const Statuses extends readonly ErrorStatus[]>(
  ...statuses: Statuses
): { [Status in Statuses[number]]: typeof errorReply & { description: string } } {
  return Object.fromEntries(
    statuses.map((status) => [status, { ...errorReply, description: ERROR_MEANINGS[status] }]),
  ) as { [Status in Statuses[number]]: typeof errorReply & { description: string } };
}

/** Statuses every route that reads a request body can answer: bad body, too large, wrong type. */
export const BODY_ERRORS = [400, 413, 415] as const;

/** Marks a route as open to anonymous callers in the OpenAPI document (overrides the global bearer). */
export const PUBLIC = [] as const;

/** One refused field: `field` a JSON pointer (or, with `path`, the field's name). */
// A type alias, not an interface: the route schemas' inferred types need its implicit index signature.
export type FieldError = {
  field: string;
  message: string;
  path?: string;
  label?: string;
};

/** The text the client shows for a refusal, in the one envelope. */
export const errorBody = (detail: string, errors?: FieldError[]) =>
  errors ? { success: false as const, detail, errors } : { success: false as const, detail };

/** A refusal the spec words as a sentence of its own: `message` that sentence, `detail` the reason. */
export const wordedErrorBody = (message: string, detail: string, errors?: FieldError[]) => ({
  ...errorBody(detail, errors),
  message,
});

/** A service's refusal as the reply: its status, Retry-After when it says how long to wait, the envelope. */
export function sendRefusal(
  reply: FastifyReply,
  refusal: {
    status: ErrorStatus;
    detail: string;
    errors?: { field: string; message: string }[];
    retryAfter?: number;
  },
) {
  if (refusal.retryAfter !== undefined) void reply.header('retry-after', String(refusal.retryAfter));
  return reply.code(refusal.status).send(errorBody(refusal.detail, refusal.errors));
}
