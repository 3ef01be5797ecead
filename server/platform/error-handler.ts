import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { formatPointer } from '../../src/engine';
import { RateStoreUnavailableError } from './rate-limiter';
import { FileStoreUnavailable } from '../storage/file-store';
import { errorBody, wordedErrorBody, type FieldError } from './reply-schemas';

/** Where a refused field is, for requests refused outside the body (the pointer alone would not say). */
const PLACES: Record<string, string> = {
  querystring: ' in the query',
  params: ' in the path',
  headers: ' in the headers',
};

/**
 * A JSON-Schema validation failure as field errors. Ajv's `instancePath` is already a JSON pointer;
 * `required` and `additionalProperties` name a property below it, escaped here the same way.
 */
function fieldErrors(error: FastifyError): FieldError[] {
  const where = PLACES[error.validationContext ?? ''] ?? '';
  return (error.validation ?? []).map((issue) => {
    const params = issue.params as { missingProperty?: string; additionalProperty?: string };
    if (issue.keyword === 'required') {
      const field = issue.instancePath + formatPointer([String(params.missingProperty)]);
      return { field, message: `${field} is required${where}` };
    }
    if (issue.keyword === 'additionalProperties') {
      const field = issue.instancePath + formatPointer([String(params.additionalProperty)]);
      return { field, message: `${field} is not a known field${where}` };
    }
    const field = issue.instancePath;
    const name = field ? `${field}${where}` : where.replace(' in the ', '') || 'body';
    return { field, message: `${name} ${issue.message ?? 'is invalid'}` };
  });
}

/** The client's text for Fastify's own refusals; their messages may quote user input, so never echoed. */
const FRAMEWORK_DETAILS: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE:
    'This content type is not accepted here; send JSON (or a form where the route takes one)',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty although its content type is application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the body',
  FST_ERR_MAX_PARAM_LENGTH: 'The address is too long',
  FST_ERR_BAD_URL: 'The address is not valid',
};

/** Describes a caught error for the log without writing request text raw (control characters escaped). */
export function describeForLog(error: unknown): { type: string; message: string; stack?: string } {
  const escape = (text: string) => JSON.stringify(text).slice(1, -1);
  if (error instanceof Error) {
    return { type: error.name, message: escape(error.message), stack: error.stack && escape(error.stack) };
  }
  return { type: typeof error, message: escape(String(error)) };
}

/** One error shape for the API: never a 500 for bad input, never a stack trace to the client. */
export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.validation) {
    const errors = fieldErrors(error);
    return reply.code(400).send(errorBody(errors.map((e) => e.message).join('; '), errors));
  }
  if (error instanceof FileStoreUnavailable) {
    // The shared file store (S3) is away: a sentence and a retry, not "Internal server error".
    request.log.warn({ err: describeForLog(error.cause) }, 'file store unavailable');
    return reply.code(503).header('retry-after', '60').send(errorBody(error.message));
  }
  if (error instanceof RateStoreUnavailableError) {
    // Redis (the rate counts) is away: a sentence and a retry, not "Internal server error".
    request.log.warn({ err: describeForLog(error.cause) }, 'rate-limit store unavailable');
    return reply.code(503).header('retry-after', '60').send(errorBody(error.message));
  }
  const status = error.statusCode ?? 500;
  if (status >= 500) {
    request.log.error({ err: describeForLog(error) }, 'request failed');
    return reply.code(500).send(errorBody('Internal server error'));
  }
  const detail = (error.code && FRAMEWORK_DETAILS[error.code]) ?? error.message;
  const errors = (error as { fieldErrors?: FieldError[] }).fieldErrors;
  return reply.code(status).send(errorBody(detail, errors));
}

/**
 * A route's error handler for routes whose refusals the spec words as a sentence ('Failed to execute
 * the application! {detail}'): a request the route's schema refuses gets that sentence as `message`
 * beside the field errors; anything else is the app's error handler's.
 */
export function wordedValidationErrors(wording: (detail: string) => string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (!error.validation) return errorHandler(error, request, reply);
    const errors = fieldErrors(error);
    const detail = errors.map((e) => e.message).join('; ');
    return reply.code(400).send(wordedErrorBody(wording(detail), detail, errors));
  };
}

/** Fastify's router refusals (an over-long or undecodable path) in the same envelope. */
// The option's type is generic over the request and type provider; this handler uses neither.
export const frameworkErrors = ((error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
  const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
  void reply.code(status).send(errorBody(FRAMEWORK_DETAILS[error.code] ?? 'Bad request'));
}) as unknown as NonNullable<FastifyServerOptions['frameworkErrors']>;

/** The reply for a path no route answers. */
export function notFoundBody() {
  return errorBody('Not found');
}
