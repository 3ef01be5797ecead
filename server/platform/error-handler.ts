import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

interface FieldError {
  field: string;
  message: string;
}

/** Turns a JSON-Schema validation failure into a message naming each field, e.g. "username is required". */
function fieldErrors(error: FastifyError): FieldError[] {
  return (error.validation ?? []).map((issue) => {
    const base = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (issue.keyword === 'required') {
      const missing = String((issue.params as { missingProperty?: string }).missingProperty);
      return { field: base ? `${base}.${missing}` : missing, message: `${missing} is required` };
    }
    if (issue.keyword === 'additionalProperties') {
      const extra = String((issue.params as { additionalProperty?: string }).additionalProperty);
      return { field: base ? `${base}.${extra}` : extra, message: `${extra} is not a known field` };
    }
    const field = base || error.validationContext || 'body';
    return { field, message: `${field} ${issue.message ?? 'is invalid'}` };
  });
}

/** One error shape for the API: never a 500 for bad input, never a stack trace to the client. */
export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.validation) {
    const errors = fieldErrors(error);
    return reply.code(400).send({ success: false, message: errors.map((e) => e.message).join('; '), errors });
  }
  const status = error.statusCode ?? 500;
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ success: false, message: 'Internal server error' });
  }
  return reply.code(status).send({ success: false, message: error.message });
}
