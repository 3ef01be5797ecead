import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { acknowledgement, BODY_ERRORS, errorReplies, sendRefusal } from '../platform/reply-schemas';
import { multilineText } from '../platform/text-schemas';
import { MESSAGE_SENT, type ContactService } from './contact-service';

// Control characters but line breaks and tabs are refused here (server/platform/text-schemas.ts);
// required fields, the e-mail format and the lengths (with their messages) are the contact form's
// rules in schemas/accounts.json, checked by the service.

/** POST /contact: a signed-in user's message to the admins (kept, and mailed to each admin). */
export const contactRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { contact: ContactService };
}> = async (app, { contact }) => {
  app.post(
    '/contact',
    {
      onRequest: app.requireUser,
      config: { documentedRequired: ['name', 'email', 'message'] },
      schema: {
        tags: ['contact'],
        summary: 'Sends a message to the admins (kept and mailed; at most 5 an hour per user)',
        body: {
          type: 'object',
          properties: {
            name: multilineText(1000),
            email: multilineText(1000),
            message: multilineText(20000),
          },
        },
        response: { 200: acknowledgement, ...errorReplies(...BODY_ERRORS, 401, 429) },
      },
    },
    async (request, reply) => {
      const outcome = await contact.send(request.currentUser!, request.body);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, message: MESSAGE_SENT });
    },
  );
};
